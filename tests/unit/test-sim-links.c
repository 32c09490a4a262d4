/* raidsim: the links' wire times against their specifications.
 *
 * Each test builds a command's traffic the long way, frame by frame or
 * packet by packet, from the specifications' constants written out
 * here (docs/links.md cites them), and compares the link model's
 * closed form with it: the SATA frames of an NCQ command with their
 * handshakes and ALIGN pairs; the TLPs and DLLPs of an NVMe command on
 * a PCIe link; an AHCI controller's traffic on a chipset's uplink.
 * Times are worked out in floating point from the line rates and codes,
 * independently of the model's integer fractions.  Then the ceilings
 * against published drive ratings that no link may fall below.
 *
 * Run: meson test -C build --suite unit sim-links
 */

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <check.h>

#include "raidsim/link.h"

#define KiB 1024u
#define MiB (1024u * 1024u)

static const uint64_t lens[] = {
  4, 512, 4096, 8192, 8196, 12288, 65536, 131072, 1 * MiB, 3 * MiB + 4,
};
#define NLENS (sizeof lens / sizeof lens[0])

/* ---- SATA (Serial ATA revision 2.6 / 3.x: FIS layouts, link layer) ---- */

/* FIS lengths in dwords. */
enum {
  FIS_REG_H2D = 5, FIS_REG_D2H = 5, FIS_DMA_SETUP = 7, FIS_DMA_ACTIVATE = 1,
  FIS_SDB = 2, FIS_DATA_HEADER = 1, FIS_DATA_MAX = 2048,
  FRAME_SOF_CRC_EOF = 3,
};

/* The dwords of an NCQ command's frames, one frame at a time, then the
 * ALIGN pairs a transmitter puts before every 254 other dwords.
 */
static uint64_t
sata_dwords (int dir, uint64_t len, uint64_t turnaround)
{
  uint64_t frames[4096], d = 0, left = (len + 3) / 4, i, n = 0;

  frames[n++] = FIS_REG_H2D;         /* the host's command */
  frames[n++] = FIS_REG_D2H;         /* the device releases the bus */
  frames[n++] = FIS_DMA_SETUP;       /* the device picks the command */
  while (left > 0) {
    uint64_t data = left < FIS_DATA_MAX ? left : FIS_DATA_MAX;

    if (dir == RAIDSIM_WRITE)
      frames[n++] = FIS_DMA_ACTIVATE; /* the device asks for the next */
    frames[n++] = FIS_DATA_HEADER + data;
    left -= data;
  }
  frames[n++] = FIS_SDB;             /* the status */
  for (i = 0; i < n; ++i)
    d += frames[i] + FRAME_SOF_CRC_EOF + turnaround;
  {
    uint64_t w = 0, since = 254;

    for (i = 0; i < d; ++i) {
      if (since == 254) {
        w += 2;                      /* ALIGN, ALIGN */
        since = 0;
      }
      w++;
      since++;
    }
    return w;
  }
}

static double
sata_gbps (int kind)
{
  return kind == RAIDSIM_LINK_SATA1 ? 1.5 : kind == RAIDSIM_LINK_SATA2 ? 3.0
    : 6.0;
}

START_TEST (sata_frames)
{
  static const int kinds[] = {
    RAIDSIM_LINK_SATA1, RAIDSIM_LINK_SATA2, RAIDSIM_LINK_SATA3,
  };
  static const uint64_t turnarounds[] = { 0, 20, 57 };
  unsigned k, i, t;
  int dir;

  for (k = 0; k < 3; ++k)
    for (t = 0; t < 3; ++t) {
      struct raidsim_link_spec spec = {
        .kind = kinds[k], .turnaround = turnarounds[t],
      };
      struct raidsim_link l;

      raidsim_link_init_spec (&l, "sata", &spec);
      ck_assert (!l.full_duplex);
      for (i = 0; i < NLENS; ++i)
        for (dir = 0; dir < RAIDSIM_NDIRS; ++dir) {
          uint64_t w = sata_dwords (dir, lens[i], turnarounds[t]);
          /* 40 bits a dword after 8b/10b, at the line rate. */
          double ns = w * 40.0 / sata_gbps (kinds[k]);

          ck_assert_msg (raidsim_link_wire (&spec, dir, lens[i]) == w,
                         "kind %d dir %d len %lu: %lu dwords, expected %lu",
                         kinds[k], dir, (unsigned long) lens[i],
                         (unsigned long) raidsim_link_wire (&spec, dir,
                                                            lens[i]),
                         (unsigned long) w);
          ck_assert_msg (fabs (raidsim_link_time (&l, dir, lens[i]) -
                               ceil (ns - 1e-6)) < 1e-9,
                         "kind %d len %lu: %lu ns, expected %.3f",
                         kinds[k], (unsigned long) lens[i],
                         (unsigned long) raidsim_link_time (&l, dir, lens[i]),
                         ns);
        }
      ck_assert_uint_eq (raidsim_link_time (&l, RAIDSIM_READ, 0), 0);
    }
}
END_TEST

/* Payload rate of transfers of len bytes, back to back. */
static double
rate_of (const struct raidsim_link_spec *spec, int dir, uint64_t len)
{
  struct raidsim_link l;

  raidsim_link_init_spec (&l, "l", spec);
  return len * 1e9 / raidsim_link_time (&l, dir, len);
}

/* Published single-drive ratings are what the drive and its link
 * deliver together, so no link may be slower than them: SanDisk Extreme
 * reads 285 MB/s on SATA 3 Gb/s and 550 on 6 Gb/s, Kingston's DC600M
 * 560 MB/s on 6 Gb/s; and none reaches the raw rate.
 */
START_TEST (sata_ceilings_against_ratings)
{
  struct raidsim_link_spec s3 = { .kind = RAIDSIM_LINK_SATA2,
                                  .turnaround = 20 };
  struct raidsim_link_spec s6 = { .kind = RAIDSIM_LINK_SATA3,
                                  .turnaround = 20 };
  uint64_t len;

  for (len = 128 * KiB; len <= 1 * MiB; len *= 2) {
    ck_assert (rate_of (&s3, RAIDSIM_READ, len) >= 285e6);
    ck_assert (rate_of (&s3, RAIDSIM_READ, len) < 296e6);
    ck_assert (rate_of (&s6, RAIDSIM_READ, len) >= 560e6);
    ck_assert (rate_of (&s6, RAIDSIM_READ, len) < 592e6);
    /* A write's DMA Activates cost it more. */
    ck_assert (rate_of (&s6, RAIDSIM_WRITE, len) <
               rate_of (&s6, RAIDSIM_READ, len));
  }
  /* A 4 KiB command pays its four other frames: about 12% over its
   * data's own time on the wire.
   */
  ck_assert (rate_of (&s3, RAIDSIM_READ, 4096) < 0.9 * 300e6);
}
END_TEST

/* ---- PCIe (PCI Express Base 1.1 to 3.0; NVMe 1.x; AHCI 1.3) ---- */

/* Bytes of each packet type: framing, sequence number and LCRC are 8
 * bytes in every generation (gen 1 and 2: STP 1, sequence 2, LCRC 4,
 * END 1; gen 3: a 4-byte STP token with the sequence number, LCRC 4);
 * a 64-bit memory request's header 16, a register access's 12 (BARs
 * below 4 GB), a completion's 12; a DLLP 8 on the wire.
 */
enum { FRAMING = 8, HDR4 = 16, HDR3 = 12, DLLP_BYTES = 8 };

struct tally {
  uint64_t bytes;                /* the data direction's */
  uint64_t reverse_tlps;         /* TLPs the other way, each answered here
                                  * by an ACK and an UpdateFC DLLP */
};

static void
mwr (struct tally *t, uint64_t payload)
{
  t->bytes += FRAMING + HDR4 + payload;
}

static void
mwr_reg (struct tally *t, uint64_t payload)
{
  t->bytes += FRAMING + HDR3 + payload;
}

static void
mrd (struct tally *t)
{
  t->bytes += FRAMING + HDR4;
}

static void
cpl (struct tally *t, uint64_t payload)
{
  t->bytes += FRAMING + HDR3 + payload;
}

/* len bytes moved in TLPs of at most max bytes each, by emit. */
static void
chunks (struct tally *t, uint64_t len, uint64_t max,
        void (*emit) (struct tally *, uint64_t))
{
  while (len > 0) {
    uint64_t n = len < max ? len : max;

    emit (t, n);
    len -= n;
  }
}

static uint64_t
count (uint64_t len, uint64_t max)
{
  uint64_t n = 0;

  while (len > 0) {
    len -= len < max ? len : max;
    n++;
  }
  return n;
}

/* One NVMe command of len bytes; the data direction is upstream for a
 * read (the drive writes host memory), downstream for a write (the
 * drive reads it and the host answers with completions of up to MPS).
 */
static uint64_t
nvme_bytes (int dir, uint64_t len, uint64_t mps, uint64_t mrrs, bool cmds)
{
  struct tally t = { 0, 0 };
  uint64_t pages = (len + 4095) / 4096;
  uint64_t list = pages > 2 ? 8 * (pages - 1) : 0;

  if (dir == RAIDSIM_READ) {
    chunks (&t, len, mps, mwr);
    if (cmds) {
      mrd (&t);                        /* fetch the command */
      t.reverse_tlps++;                /* its completion */
      t.reverse_tlps += count (list, mps); /* the list's completions */
      t.bytes += count (list, mrrs) * (FRAMING + HDR4); /* list fetches */
      mwr (&t, 16);                    /* completion entry */
      mwr (&t, 4);                     /* MSI-X */
      t.reverse_tlps += 2;             /* the two doorbells */
    }
  }
  else {
    chunks (&t, len, mps, cpl);
    t.reverse_tlps += count (len, mrrs); /* the drive's read requests */
    if (cmds) {
      mwr_reg (&t, 4);                 /* submission doorbell */
      cpl (&t, 64);                    /* the command */
      chunks (&t, list, mps, cpl);     /* the list */
      mwr_reg (&t, 4);                 /* completion doorbell */
      t.reverse_tlps += 1 + count (list, mrrs) + 1 + 1; /* fetches, entry, MSI-X */
    }
  }
  return t.bytes + t.reverse_tlps * 2 * DLLP_BYTES;
}

/* One NCQ command of an AHCI controller behind an uplink. */
static uint64_t
ahci_bytes (int dir, uint64_t len, uint64_t mps, uint64_t mrrs)
{
  struct tally t = { 0, 0 };
  uint64_t prdt = 16 * ((len + 4095) / 4096), i;

  if (dir == RAIDSIM_READ) {
    chunks (&t, len, mps, mwr);
    mrd (&t);                          /* command header */
    mrd (&t);                          /* command FIS */
    for (i = 0; i < count (prdt, mrrs); ++i)
      mrd (&t);                        /* PRD table */
    mwr (&t, 20);                      /* received Register D2H */
    mwr (&t, 28);                      /* received DMA Setup */
    mwr (&t, 8);                       /* received Set Device Bits */
    mwr (&t, 4);                       /* MSI */
    for (i = 0; i < 4; ++i)
      cpl (&t, 4);                     /* the driver's register reads */
    t.reverse_tlps = 2 + count (prdt, mps) + 2 + 4;
  }
  else {
    chunks (&t, len, mps, cpl);
    t.reverse_tlps += count (len, mrrs);
    cpl (&t, 32);
    cpl (&t, 20);
    chunks (&t, prdt, mps, cpl);
    mwr_reg (&t, 4);                   /* PxSACT */
    mwr_reg (&t, 4);                   /* PxCI */
    for (i = 0; i < 4; ++i)
      t.bytes += FRAMING + HDR3;       /* register read requests */
    t.reverse_tlps += 2 + count (prdt, mrrs) + 3 + 1 + 4;
  }
  return t.bytes + t.reverse_tlps * 2 * DLLP_BYTES;
}

/* ns for bytes over lanes: 8b/10b at 2.5 or 5 GT/s, or 128b/130b at
 * 8 GT/s, with one SKP ordered set per 1180 symbols (4 symbols; gen 1,
 * 2) or per 370 blocks (one block; gen 3).
 */
static double
pcie_ns (int gen, unsigned lanes, uint64_t bytes)
{
  double per_lane = (double) bytes / lanes;

  switch (gen) {
  case 1: return per_lane * 10 / 2.5 * (1180.0 + 4) / 1180;
  case 2: return per_lane * 10 / 5.0 * (1180.0 + 4) / 1180;
  default: return per_lane * 8 * 130 / 128 / 8.0 * (370.0 + 1) / 370;
  }
}

START_TEST (pcie_nvme_packets)
{
  static const struct { int kind, gen; unsigned lanes; } links[] = {
    { RAIDSIM_LINK_PCIE1, 1, 1 }, { RAIDSIM_LINK_PCIE2, 2, 2 },
    { RAIDSIM_LINK_PCIE3, 3, 4 }, { RAIDSIM_LINK_PCIE3, 3, 16 },
  };
  static const uint64_t mpss[] = { 128, 256, 512 };
  unsigned k, m, i, c;
  int dir;

  for (k = 0; k < 4; ++k)
    for (m = 0; m < 3; ++m)
      for (c = 0; c < 2; ++c) {
        struct raidsim_link_spec spec = {
          .kind = links[k].kind, .lanes = links[k].lanes, .mps = mpss[m],
          .mrrs = 512,
          .cmds = c ? RAIDSIM_LINK_CMDS_NVME : RAIDSIM_LINK_CMDS_NONE,
        };
        struct raidsim_link l;

        raidsim_link_init_spec (&l, "pcie", &spec);
        ck_assert (l.full_duplex);
        for (i = 0; i < NLENS; ++i)
          for (dir = 0; dir < RAIDSIM_NDIRS; ++dir) {
            uint64_t b = nvme_bytes (dir, lens[i], mpss[m], 512, c);
            double ns = pcie_ns (links[k].gen, links[k].lanes, b);
            raidsim_ns t = raidsim_link_time (&l, dir, lens[i]);

            ck_assert_msg (raidsim_link_wire (&spec, dir, lens[i]) == b,
                           "gen %d mps %lu cmds %u dir %d len %lu: %lu "
                           "bytes, expected %lu", links[k].gen,
                           (unsigned long) mpss[m], c, dir,
                           (unsigned long) lens[i],
                           (unsigned long) raidsim_link_wire (&spec, dir,
                                                              lens[i]),
                           (unsigned long) b);
            ck_assert_msg (t >= ns - 1e-3 && t < ns + 1,
                           "gen %d x%u len %lu: %lu ns, expected %.3f",
                           links[k].gen, links[k].lanes,
                           (unsigned long) lens[i], (unsigned long) t, ns);
          }
      }
}
END_TEST

/* DMI 1.0, A-Link Express II, DMI 2.0 and 3.0 are four lanes whatever
 * the lanes key says, with an AHCI controller's traffic on them.
 */
START_TEST (uplink_ahci_packets)
{
  static const struct { int kind, gen; } links[] = {
    { RAIDSIM_LINK_DMI1, 1 }, { RAIDSIM_LINK_ALINK2, 1 },
    { RAIDSIM_LINK_DMI2, 2 }, { RAIDSIM_LINK_DMI3, 3 },
  };
  unsigned k, i;
  int dir;

  for (k = 0; k < 4; ++k) {
    struct raidsim_link_spec spec = {
      .kind = links[k].kind, .lanes = 1, .mps = 128, .mrrs = 512,
      .cmds = RAIDSIM_LINK_CMDS_AHCI,
    };
    struct raidsim_link l;

    raidsim_link_init_spec (&l, "uplink", &spec);
    for (i = 0; i < NLENS; ++i)
      for (dir = 0; dir < RAIDSIM_NDIRS; ++dir) {
        uint64_t b = ahci_bytes (dir, lens[i], 128, 512);
        double ns = pcie_ns (links[k].gen, 4, b);
        raidsim_ns t = raidsim_link_time (&l, dir, lens[i]);

        ck_assert_msg (raidsim_link_wire (&spec, dir, lens[i]) == b,
                       "kind %d dir %d len %lu: %lu bytes, expected %lu",
                       links[k].kind, dir, (unsigned long) lens[i],
                       (unsigned long) raidsim_link_wire (&spec, dir,
                                                          lens[i]),
                       (unsigned long) b);
        ck_assert_msg (t >= ns - 1e-3 && t < ns + 1,
                       "kind %d len %lu: %lu ns, expected %.3f",
                       links[k].kind, (unsigned long) lens[i],
                       (unsigned long) t, ns);
      }
  }
}
END_TEST

/* Samsung's 970 Pro is rated 3,500 MB/s of reads and 2,700 MB/s of
 * writes on PCIe 3.0 x4: the link must allow that with the payload size
 * of its platform, which 128 bytes does not for the reads.
 */
START_TEST (pcie_ceilings_against_ratings)
{
  struct raidsim_link_spec p256 = {
    .kind = RAIDSIM_LINK_PCIE3, .lanes = 4, .mps = 256, .mrrs = 512,
    .cmds = RAIDSIM_LINK_CMDS_NVME,
  };
  struct raidsim_link_spec p128 = p256;

  p128.mps = 128;
  ck_assert (rate_of (&p256, RAIDSIM_READ, 128 * KiB) >= 3500e6);
  ck_assert (rate_of (&p256, RAIDSIM_WRITE, 128 * KiB) >= 2700e6);
  ck_assert (rate_of (&p128, RAIDSIM_READ, 128 * KiB) < 3500e6);
  /* Below the raw 3,938 MB/s of four 8 GT/s lanes after 128b/130b. */
  ck_assert (rate_of (&p256, RAIDSIM_READ, 1 * MiB) < 3700e6);
}
END_TEST

/* A bare rate is len / rate, rounded up, as before links had
 * specifications.
 */
START_TEST (bare_rate)
{
  struct raidsim_link l;

  raidsim_link_init (&l, "r", 300000000, false);
  ck_assert_uint_eq (raidsim_link_time (&l, RAIDSIM_READ, 3000), 10000);
  ck_assert_uint_eq (raidsim_link_time (&l, RAIDSIM_WRITE, 1), 4);
  ck_assert_uint_eq (l.rate, 300000000);
  raidsim_link_init (&l, "none", 0, true);
  ck_assert_uint_eq (raidsim_link_time (&l, RAIDSIM_READ, 3000), 0);
}
END_TEST

/* The memo is per direction: a read after a write of the same length
 * on a SATA link takes a read's time.
 */
START_TEST (memo_per_direction)
{
  struct raidsim_link_spec spec = { .kind = RAIDSIM_LINK_SATA2,
                                    .turnaround = 20 };
  struct raidsim_link l, *path[1] = { &l };
  raidsim_ns w, r;

  raidsim_link_init_spec (&l, "sata", &spec);
  w = raidsim_links_transfer (path, 1, RAIDSIM_WRITE, 65536, 0);
  r = raidsim_links_transfer (path, 1, RAIDSIM_READ, 65536, w) - w;
  ck_assert_uint_eq (w, raidsim_link_time (&l, RAIDSIM_WRITE, 65536));
  ck_assert_uint_eq (r, raidsim_link_time (&l, RAIDSIM_READ, 65536));
  ck_assert_uint_lt (r, w);
}
END_TEST

static Suite *
links_suite (void)
{
  Suite *s = suite_create ("sim-links");
  TCase *tc = tcase_create ("links");

  tcase_add_test (tc, sata_frames);
  tcase_add_test (tc, sata_ceilings_against_ratings);
  tcase_add_test (tc, pcie_nvme_packets);
  tcase_add_test (tc, uplink_ahci_packets);
  tcase_add_test (tc, pcie_ceilings_against_ratings);
  tcase_add_test (tc, bare_rate);
  tcase_add_test (tc, memo_per_direction);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (links_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
