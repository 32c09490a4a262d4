/* raidsim: the subcommands of the raidsim program.
 *
 * Each subcommand is one function with main's signature, called with
 * argv[0] set to the subcommand's name.  It returns the process exit
 * status: 0 on success, 1 on bad input or failure.  main.c lists them
 * all in one table; add a new command there and declare it here.
 */
#ifndef RAIDSIM_CMD_H
#define RAIDSIM_CMD_H

#define PROGRAM_NAME "raidsim"

/* raidsim map: show where array bytes live on the members.  cmd-map.c */
extern int cmd_map (int argc, char **argv);

/* raidsim run: simulate a fio job against an array.  cmd-run.c */
extern int cmd_run (int argc, char **argv);

/* raidsim list: the config and workload files found by name.
 * cmd-list.c
 */
extern int cmd_list (int argc, char **argv);

/* raidsim config: the config reference; check config files.  cmd-config.c */
extern int cmd_config (int argc, char **argv);

/* raidsim sweep: a workload over arrays and parameter values.  cmd-sweep.c */
extern int cmd_sweep (int argc, char **argv);

/* raidsim plot: draw a sweep with gnuplot.  cmd-plot.c */
extern int cmd_plot (int argc, char **argv);

/* raidsim demo, and raidsim with no arguments.  cmd-demo.c */
extern int cmd_demo (int argc, char **argv);

/* raidsim validate: predictions against published figures.
 * cmd-validate.c
 */
extern int cmd_validate (int argc, char **argv);

/* raidsim create: write md v1.2 superblocks to new members.  cmd-create.c */
extern int cmd_create (int argc, char **argv);

/* raidsim examine: print members' md superblocks as mdadm --examine.
 * cmd-examine.c
 */
extern int cmd_examine (int argc, char **argv);

/* raidsim control: the raid plugin's control socket (mdadm --detail,
 * --fail, --remove, sync_action).  cmd-control.c
 */
extern int cmd_control (int argc, char **argv);

/* raidsim calibrate: a device profile fitted to fio measurements.
 * cmd-calibrate.c
 */
extern int cmd_calibrate (int argc, char **argv);

#endif /* RAIDSIM_CMD_H */
