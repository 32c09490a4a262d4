/* raidsim: the link model (see link.h for what it does and does not
 * capture, docs/links.md for the derivation of every term below).  Each
 * link keeps, per direction it has, the time at which it next becomes
 * free; a transfer reserves its wire time from then.
 *
 * The wire time is wire units (raidsim_link_wire) times the time of one
 * unit, num / den nanoseconds, worked out once per link:
 *
 *   rate        1 payload byte:       10^9 / rate
 *   SATA        1 dword, 40 bits after 8b/10b:  40 / (Gb/s)
 *   PCIe 1, 2   1 byte on each lane, 10 bits after 8b/10b at 2.5 or
 *               5 GT/s (4 or 2 ns), times 1184/1180 for the SKP
 *               ordered set (4 symbols) a lane sends every 1180 symbols
 *               at most, over the lanes
 *   PCIe 3      1 byte on each lane, 8 * 130/128 bits at 8 GT/s
 *               (65/64 ns), times 371/370 for the SKP ordered set (one
 *               block) sent every 370 blocks at most, over the lanes
 */

#include <stdio.h>
#include <string.h>

#include "raidsim/link.h"

/* PCIe packet sizes in bytes (docs/links.md, "PCIe"). */
#define TLP_FRAME 8             /* framing, sequence number, LCRC */
#define HDR_MEM 16              /* memory request, 64-bit address */
#define HDR_MMIO 12             /* memory request below 4 GB (registers) */
#define HDR_CPL 12              /* completion */
#define DLLP 8
#define ACKS (2 * DLLP)         /* an ACK and an UpdateFC per TLP received */
#define MEM_REQ (TLP_FRAME + HDR_MEM)   /* a read request; a write's header */
#define REG_WRITE (TLP_FRAME + HDR_MMIO + 4) /* a 4-byte register write */
#define CPL (TLP_FRAME + HDR_CPL)       /* a completion's header */

/* NVMe and AHCI structures in bytes. */
#define NVME_SQE 64
#define NVME_CQE 16
#define MSI 4
#define AHCI_CMD_HEADER 32
#define AHCI_CFIS 20            /* Register H2D, CFL = 5 dwords */
#define AHCI_PRD 16
#define AHCI_RFIS (20 + 28 + 8) /* Register D2H, DMA Setup, Set Device Bits */
#define AHCI_REG_WRITES 2       /* PxSACT, PxCI */
#define AHCI_REG_READS 4        /* uncacheable reads per command */

static uint64_t
div_up (uint64_t a, uint64_t b)
{
  return a / b + (a % b != 0);
}

/* One SATA frame of a FIS of fis dwords: SOF, the FIS, CRC, EOF, and
 * the handshakes (X_RDY/R_RDY before, WTRM/R_OK after).
 */
static uint64_t
sata_frame (uint64_t fis, uint64_t turnaround)
{
  return fis + 3 + turnaround;
}

/* An NCQ command: Register H2D (5 dwords), Register D2H releasing the
 * bus (5), DMA Setup (7), the data FISes (1 header dword each, at most
 * 2048 data dwords), a DMA Activate (1) before each of a write's data
 * FISes, Set Device Bits (2); then an ALIGN pair at least every 256
 * dwords.
 */
static uint64_t
sata_wire (const struct raidsim_link_spec *s, enum raidsim_dir dir,
           uint64_t len)
{
  uint64_t t = s->turnaround;
  uint64_t nfis = div_up (len, RAIDSIM_SATA_FIS_MAX_DATA);
  uint64_t d;

  d = sata_frame (5, t) + sata_frame (5, t) + sata_frame (7, t) +
    sata_frame (2, t) + div_up (len, 4) + nfis * sata_frame (1, t);
  if (dir == RAIDSIM_WRITE)
    d += nfis * sata_frame (1, t);
  return d + 2 * div_up (d, RAIDSIM_SATA_ALIGN_EVERY);
}

/* The data direction's bytes of one command on a PCIe link. */
static uint64_t
pcie_wire (const struct raidsim_link_spec *s, enum raidsim_dir dir,
           uint64_t len)
{
  uint64_t mps = s->mps, mrrs = s->mrrs;
  uint64_t b;

  /* The data: a read's as the device's memory writes into host
   * memory; a write's as the completions of the device's reads of it,
   * which the host combines up to the payload size, each of whose
   * read requests coming the other way is acknowledged this way.
   */
  if (dir == RAIDSIM_READ)
    b = len + div_up (len, mps) * MEM_REQ;
  else
    b = len + div_up (len, mps) * CPL + div_up (len, mrrs) * ACKS;

  switch (s->cmds) {
  case RAIDSIM_LINK_CMDS_NVME: {
    /* Past two pages the command points at a list of the other pages'
     * entries (PRP list), 8 bytes each, which the device reads.
     */
    uint64_t pages = div_up (len, RAIDSIM_NVME_PAGE);
    uint64_t prp = pages > 2 ? 8 * (pages - 1) : 0;

    if (dir == RAIDSIM_READ)
      /* Up: the command's fetch, the list's, the completion entry, the
       * interrupt; and the acknowledgements of what comes down: the
       * submission doorbell, the command, the list, the completion
       * doorbell.
       */
      b += MEM_REQ + div_up (prp, mrrs) * MEM_REQ +
        MEM_REQ + NVME_CQE + MEM_REQ + MSI +
        (3 + div_up (prp, mps)) * ACKS;
    else
      /* Down: the doorbells, the command, the list; and the
       * acknowledgements of the fetches, the completion entry and the
       * interrupt that go up.
       */
      b += 2 * REG_WRITE + CPL + NVME_SQE + prp + div_up (prp, mps) * CPL +
        (3 + div_up (prp, mrrs)) * ACKS;
    break;
  }
  case RAIDSIM_LINK_CMDS_AHCI: {
    /* The HBA fetches the command header, the command FIS and one
     * PRD entry per page, writes the received FISes and the interrupt;
     * the driver writes two registers and reads four.
     */
    uint64_t prdt = AHCI_PRD * div_up (len, RAIDSIM_NVME_PAGE);
    uint64_t fetches = 2 + div_up (prdt, mrrs);
    uint64_t down_tlps = 2 + div_up (prdt, mps) + AHCI_REG_WRITES +
      AHCI_REG_READS;
    uint64_t up_tlps = fetches + 3 + 1 + AHCI_REG_READS;

    if (dir == RAIDSIM_READ)
      b += fetches * MEM_REQ + 3 * MEM_REQ + AHCI_RFIS + MEM_REQ + MSI +
        AHCI_REG_READS * (CPL + 4) + down_tlps * ACKS;
    else
      b += 2 * CPL + AHCI_CMD_HEADER + AHCI_CFIS + prdt +
        div_up (prdt, mps) * CPL + AHCI_REG_WRITES * REG_WRITE +
        AHCI_REG_READS * (TLP_FRAME + HDR_MMIO) + up_tlps * ACKS;
    break;
  }
  default:
    break;
  }
  return b;
}

uint64_t
raidsim_link_wire (const struct raidsim_link_spec *s, enum raidsim_dir dir,
                   uint64_t len)
{
  if (len == 0)
    return 0;
  switch (s->kind) {
  case RAIDSIM_LINK_SATA1:
  case RAIDSIM_LINK_SATA2:
  case RAIDSIM_LINK_SATA3:
    return sata_wire (s, dir, len);
  case RAIDSIM_LINK_PCIE1:
  case RAIDSIM_LINK_PCIE2:
  case RAIDSIM_LINK_PCIE3:
  case RAIDSIM_LINK_DMI1:
  case RAIDSIM_LINK_ALINK2:
  case RAIDSIM_LINK_DMI2:
  case RAIDSIM_LINK_DMI3:
    return pcie_wire (s, dir, len);
  default:
    return len;
  }
}

void
raidsim_link_init_spec (struct raidsim_link *l, const char *name,
                        const struct raidsim_link_spec *spec)
{
  uint64_t lanes = spec->lanes ? spec->lanes : 1;

  if (spec->kind >= RAIDSIM_LINK_DMI1)
    lanes = 4;

  memset (l, 0, sizeof *l);
  snprintf (l->name, sizeof l->name, "%s", name);
  l->spec = *spec;
  l->full_duplex = true;
  switch (spec->kind) {
  case RAIDSIM_LINK_SATA1:
    l->num = 40 * 1000, l->den = 1500, l->full_duplex = false;
    break;
  case RAIDSIM_LINK_SATA2:
    l->num = 40 * 1000, l->den = 3000, l->full_duplex = false;
    break;
  case RAIDSIM_LINK_SATA3:
    l->num = 40 * 1000, l->den = 6000, l->full_duplex = false;
    break;
  case RAIDSIM_LINK_PCIE1:
  case RAIDSIM_LINK_DMI1:
  case RAIDSIM_LINK_ALINK2:
    l->num = 4 * 1184, l->den = 1180 * lanes;
    break;
  case RAIDSIM_LINK_PCIE2:
  case RAIDSIM_LINK_DMI2:
    l->num = 2 * 1184, l->den = 1180 * lanes;
    break;
  case RAIDSIM_LINK_PCIE3:
  case RAIDSIM_LINK_DMI3:
    l->num = 65 * 371, l->den = 64 * 370 * lanes;
    break;
  default:
    l->full_duplex = spec->duplex == RAIDSIM_FULL_DUPLEX;
    l->rate = spec->rate;
    l->num = RAIDSIM_NS_PER_S, l->den = spec->rate;
    return;
  }
  /* The long-read payload rate, for reports. */
  {
    const uint64_t mib = UINT64_C (1) << 20;

    l->rate = mib * RAIDSIM_NS_PER_S / raidsim_link_time (l, RAIDSIM_READ, mib);
  }
}

void
raidsim_link_init (struct raidsim_link *l, const char *name, uint64_t rate,
                   bool full_duplex)
{
  struct raidsim_link_spec spec = {
    .kind = RAIDSIM_LINK_RATE, .rate = rate,
    .duplex = full_duplex ? RAIDSIM_FULL_DUPLEX : RAIDSIM_HALF_DUPLEX,
  };

  raidsim_link_init_spec (l, name, &spec);
}

void
raidsim_link_reset_stats (struct raidsim_link *l)
{
  memset (l->bytes, 0, sizeof l->bytes);
  memset (l->busy, 0, sizeof l->busy);
}

raidsim_ns
raidsim_link_time (const struct raidsim_link *l, enum raidsim_dir dir,
                   uint64_t len)
{
  uint64_t w;

  if (l->den == 0)
    return 0;
  w = raidsim_link_wire (&l->spec, dir, len);
  /* 64-bit arithmetic when the product fits (any transfer under a few
   * GB): the same result as the 128-bit one, at a fraction of the cost.
   */
  if (w <= (UINT64_MAX - l->den) / l->num)
    return (w * l->num + l->den - 1) / l->den;
  return (raidsim_ns) (((unsigned __int128) w * l->num + l->den - 1) / l->den);
}

raidsim_ns
raidsim_links_transfer (struct raidsim_link *const *path, unsigned n,
                        enum raidsim_dir dir, uint64_t len, raidsim_ns now)
{
  raidsim_ns done = now;
  unsigned i;

  for (i = 0; i < n; ++i) {
    struct raidsim_link *l = path[i];
    raidsim_ns start, t;
    unsigned lane;

    if (l == NULL || l->rate == 0)
      continue;
    lane = l->full_duplex ? dir : 0;
    if (len != l->memo_len[dir]) {
      l->memo_len[dir] = len;
      l->memo_time[dir] = raidsim_link_time (l, dir, len);
    }
    t = l->memo_time[dir];
    start = l->free_at[lane] > now ? l->free_at[lane] : now;
    l->free_at[lane] = start + t;
    l->bytes[dir] += len;
    l->busy[dir] += t;
    if (start + t > done)
      done = start + t;
  }
  return done;
}
