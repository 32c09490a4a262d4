/* raidsim: parameters described once.
 *
 * Every parameter of every config file and every supported fio option is
 * one struct raidsim_param: its name, type (which fixes its syntax and
 * unit), where it is stored (offsetof), its default, its range and its
 * help.  From those tables alone come the INI parsing, the range checks,
 * the error messages ("FILE:LINE: KEY: what is wrong"), `raidsim help
 * config` and docs/config-reference.md, so the four can never disagree.
 *
 * Config files are read with libinih into a struct raidsim_ini (all
 * sections and keys with their line numbers) and then applied to a
 * struct through one or more tables; a key that no table knows is an
 * error, never ignored.
 */
#ifndef RAIDSIM_PARAM_H
#define RAIDSIM_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Longest string value (paths, names), including the final NUL. */
#define RAIDSIM_STR_MAX 512

enum raidsim_ptype {
  /* uint64_t: a plain decimal count. */
  RAIDSIM_PT_UINT,
  /* uint64_t bytes: a number with an optional K, M, G, T suffix, powers
   * of 1024, as the nbdkit raid plugin takes them (raid_parse_size).
   */
  RAIDSIM_PT_SIZE,
  /* uint64_t nanoseconds: a decimal number and a unit, ns, us, ms or s
   * ("8.5ms").  A bare 0 needs no unit.
   */
  RAIDSIM_PT_TIME,
  /* uint64_t bytes per second: a decimal number and a unit, B/s, KB/s,
   * MB/s, GB/s (powers of 1000, as link speeds are quoted) or KiB/s,
   * MiB/s, GiB/s.  0 means unlimited.
   */
  RAIDSIM_PT_RATE,
  /* bool: 0, 1, false, true, no, yes, off, on. */
  RAIDSIM_PT_BOOL,
  /* int: one of the names in enums[], stored as its value. */
  RAIDSIM_PT_ENUM,
  /* char[RAIDSIM_STR_MAX]. */
  RAIDSIM_PT_STRING,
  /* uint64_t: an integer as fio reads one: decimal (or 0x hex) with
   * fio's optional multipliers, k/kb = 1024 ... p/pb = 1024^5, and, as
   * fio does by default (kb_base=1024), kib/mib/... = powers of 1000;
   * case-insensitive.
   */
  RAIDSIM_PT_FIO_INT,
  /* uint64_t nanoseconds: a time as fio reads one: an integer with an
   * optional unit us/usec, ms/msec, s, m, h, d; seconds if none.
   */
  RAIDSIM_PT_FIO_TIME,
  /* uint64_t thousandths: a decimal number without a unit ("2.5"), for
   * factors such as a write amplification; stored as 2500.
   */
  RAIDSIM_PT_RATIO,
};

#define RAIDSIM_RATIO_ONE 1000

struct raidsim_enum {
  const char *name;
  int value;
};

struct raidsim_param {
  const char *name;
  const char *old_name;         /* an older spelling files may still use,
                                 * or NULL */
  enum raidsim_ptype type;
  size_t offset;                /* offsetof into the target struct */
  const char *def;              /* default, in file syntax; NULL: required */
  uint64_t min, max;            /* inclusive range in base units;
                                 * max == 0 means no upper limit */
  const char *unit;             /* for the docs when the type does not
                                 * imply one ("commands", "%"); or NULL */
  const struct raidsim_enum *enums; /* PT_ENUM: ends with a NULL name */
  const char *help;
};

/* A table ends with an entry whose name is NULL. */
#define RAIDSIM_PARAM_END { .name = NULL }

/* Parse one value of the given parameter into field.  Returns 0, or -1
 * with raidsim_error () set to "KEY: what is wrong" (no file or line).
 */
extern int raidsim_param_parse (const struct raidsim_param *p,
                                const char *value, void *field);

/* Format a stored value back in file syntax, choosing the largest unit
 * that keeps it exact ("128K", "8500us", "3500MB/s").
 */
extern void raidsim_param_format (const struct raidsim_param *p,
                                  const void *field, char *buf, size_t len);
/* Format a number in the syntax of type t, as above. */
extern void raidsim_param_format_value (enum raidsim_ptype t, uint64_t v,
                                        char *buf, size_t len);

/* ---- INI files ---- */

struct raidsim_ini_entry {
  unsigned section;             /* index into sections[] */
  unsigned line;
  char *key;
  char *value;                  /* NULL for a bare word (fio flags) */
  bool used;                    /* consumed by raidsim_params_apply */
};

struct raidsim_ini_section {
  char *name;
  unsigned line;
};

struct raidsim_ini {
  char *path;
  int syntax;                   /* enum raidsim_ini_syntax */
  unsigned nsections;
  struct raidsim_ini_section *sections;
  unsigned nentries;
  struct raidsim_ini_entry *entries;
};

enum raidsim_ini_syntax {
  /* Our config files: ';' or '#' starts a comment at the start of a line
   * or after white space.
   */
  RAIDSIM_INI_CONFIG,
  /* fio job files: ';' or '#' anywhere ends the line, as fio's own
   * parser has it, and a bare word is an option without a value.
   */
  RAIDSIM_INI_FIO,
};

/* Read path with libinih.  Returns NULL with raidsim_error () set to
 * "PATH:LINE: what is wrong" on a syntax error, or "PATH: ..." if the
 * file cannot be read.  Keys before the first section are errors.
 */
extern struct raidsim_ini *raidsim_ini_load (const char *path,
                                             enum raidsim_ini_syntax syntax);
/* The same from text in memory, which messages call name: a config
 * compiled into the program, by its path in the source tree.
 */
extern struct raidsim_ini *raidsim_ini_load_text (const char *name,
                                                  const char *text,
                                                  enum raidsim_ini_syntax
                                                  syntax);
extern void raidsim_ini_free (struct raidsim_ini *ini);

/* The index of the first section with this name, or -1. */
extern int raidsim_ini_find_section (const struct raidsim_ini *ini,
                                     const char *name);
/* The entry of key in section occurrence sec, or NULL. */
extern struct raidsim_ini_entry *raidsim_ini_get (const struct raidsim_ini *ini,
                                                  unsigned sec,
                                                  const char *key);

/* Apply the entries of section occurrence sec to ntables (table, base)
 * pairs.  With defaults, parameters the section does not set take their
 * default, and a required one that is missing is an error; without,
 * only the keys present are set (fio's job sections on top of
 * [global]).  A key found in no table, a key given twice and a bad value
 * are errors naming the file, the line and the key.  If lines is not
 * NULL, lines[t][i] receives the line that set parameter i of table t
 * (0 for a default).  Returns 0 or -1.
 */
extern int raidsim_params_apply (struct raidsim_ini *ini, unsigned sec,
                                 unsigned ntables,
                                 const struct raidsim_param *const *tables,
                                 void *const *bases,
                                 unsigned *const *lines,
                                 bool defaults);

/* Set every parameter of a table to its default (required ones to 0). */
extern void raidsim_params_defaults (const struct raidsim_param *table,
                                     void *base);

/* ---- documentation ---- */

/* One section's parameters as a Markdown table or as plain text, for
 * docs/config-reference.md and `raidsim help config`.
 */
extern void raidsim_params_doc (FILE *fp, const struct raidsim_param *table,
                                bool markdown);

/* The unit a type implies ("bytes", "ns", ...), or p->unit. */
extern const char *raidsim_param_unit (const struct raidsim_param *p);

#endif /* RAIDSIM_PARAM_H */
