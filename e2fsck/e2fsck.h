/* SPDX-License-Identifier: GPL-2.0 */
/*
 * e2fsck.h: what every file of our e2fsck shares: the run's context
 * (struct e2fsck_ctx), fsck(8) exit codes, the option flags, and each
 * file's entry points (util.c, conf.c, progress.c, engine.c, journal.c).
 *
 * Our e2fsck does one thing itself: the journal phase (check the
 * journal the way e2fsprogs' e2fsck does, and replay it through
 * libe2journal under the corrupt-journal policy).  Passes 1-5 are run by
 * the engine, e2fsprogs' own e2fsck (E2FSCK_ENGINE), which is handed the
 * user's options once the journal phase is over.  Everything the engine
 * would do identically (every journal problem that does not end in a
 * replay) is left to it, so that its messages come out exactly once.
 */
#ifndef E2JOURNAL_E2FSCK_H
#define E2JOURNAL_E2FSCK_H

#include <ext2fs/ext2fs.h>
#include <et/com_err.h>

#include "ej_lib.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* fsck(8) exit codes. */
#define FSCK_OK			0
#define FSCK_NONDESTRUCT	1
#define FSCK_REBOOT		2
#define FSCK_UNCORRECTED	4
#define FSCK_ERROR		8
#define FSCK_USAGE		16
#define FSCK_CANCELED		32
#define FSCK_LIBRARY		128

/* ctx->options: what the command line asked for. */
#define E2F_OPT_READONLY	0x0001
#define E2F_OPT_PREEN		0x0002
#define E2F_OPT_YES		0x0004
#define E2F_OPT_NO		0x0008
#define E2F_OPT_FORCE		0x0010
#define E2F_OPT_JOURNAL_ONLY	0x0020
#define E2F_OPT_COMPRESS_DIRS	0x0040
#define E2F_OPT_CHECKBLOCKS	0x0080
#define E2F_OPT_FIXES_ONLY	0x0100
#define E2F_OPT_CONVERT_BMAP	0x0200

/* ctx->flags: what the journal phase did. */
#define E2F_FLAG_PROBLEMS_FIXED	0x0001	/* a "yes" was answered */
#define E2F_FLAG_BANNER		0x0002	/* our banner is out */
#define E2F_FLAG_FORCE_ENGINE	0x0004	/* the engine must get -f */
#define E2F_FLAG_YES_TO_ALL	0x0008	/* 'a': the engine gets -y */
#define E2F_FLAG_FLAGGED	0x0020	/* corruption flagged */
#define E2F_FLAG_NO_ENGINE	0x0040	/* do not run the engine */
#define E2F_FLAG_ACTED		0x0080	/* the journal phase acted */

/*
 * What a rehearsal of the journal checks found: the journal phase runs
 * its checks twice, a rehearsal on the filesystem opened read-only, which
 * prints and writes nothing and only says where e2fsck's answers would
 * lead, then, if that ends in a replay (or a question only a person can
 * answer), for real (rehearse_checks(), jcheck.c).
 */
struct e2f_rehearsal {
	int		asked;		/* a person would be asked */
	int		stop;		/* it would halt or abort */
};

/* What the journal phase decided about the device. */
enum e2f_journal_action {
	E2F_JOURNAL_DELEGATE = 0,	/* untouched: the engine does it all */
	E2F_JOURNAL_DONE,		/* we acted; now the engine */
};

struct e2fsck_ctx {
	const char	*program_name;	/* argv[0], the engine's too */
	char		*filesystem_name; /* the device as we open it */
	char		*io_options;	/* after '?' in the device */
	char		*device_name;	/* -N, label, or path */
	int		named;		/* -N given */
	const char	*device_arg;	/* the device as written */
	char		*journal_name;	/* -j, resolved */
	const char	*journal_arg;	/* -j as written */
	const char	*undo_file;	/* -z */
	unsigned long long superblock;	/* -b */
	int		blocksize;	/* -B */
	unsigned int	options;	/* E2F_OPT_* */
	unsigned int	flags;		/* E2F_FLAG_* */
	int		interactive;
	int		cflag;		/* -c given */
	int		bad_blocks_file; /* -l or -L given */
	int		flush;		/* -F given */

	/* -E keys of our own */
	int		policy;		/* enum jbd2_replay_policy */
	int		policy_set;	/* 1: -E, 2: e2fsck.conf */
	int		conf_bad;	/* e2fsck.conf is not profile syntax */
	char		*report_file;	/* journal_report= */
	char		*save_file;	/* journal_save= */
	int		jsb_v2_kept;	/* see clear_v2_fields() */
	unsigned int	io_flags;	/* EJ_IO_*, from E2JOURNAL_IO */

	/* what the engine gets: the user's options, our -E keys removed */
	char		**engine_argv;
	char		*engine_flags;	/* the "-x" strings engine_argv holds */
	int		engine_argc;
	char		*engine_extended; /* the last -E without our keys */

	ext2_filsys	fs;
	int		exit_value;	/* bits the journal phase adds */
	unsigned long long replay_bytes; /* s_kbytes_written's share, bytes */
	int		count_kbytes;	/* s_kbytes_written is kept */

	/* set while the checks rehearse: no output, no writes */
	struct e2f_rehearsal *rehearsal;

	/* -C: progress of the journal phase (progress.c) */
	int		progress;	/* -C given */
	int		progress_fd;	/* 0: a bar on stdout */
	struct ej_report *progress_report;
	unsigned int	progress_last;	/* thousandths last shown */
	long long	progress_time;	/* ms of the last update */
	int		progress_drawn;	/* a bar is on the screen */
};

/* util.c: output, ways out, the filesystem closed, signals, devices */
void e2fsck_banner(struct e2fsck_ctx *ctx);
_Noreturn void fatal_error(struct e2fsck_ctx *ctx, const char *msg);
_Noreturn void preenhalt(struct e2fsck_ctx *ctx);
__printf(2, 3) void log_out(struct e2fsck_ctx *ctx, const char *fmt, ...);
__printf(2, 3) void log_err(struct e2fsck_ctx *ctx, const char *fmt, ...);

/* com_err(), after our banner (the engine's would otherwise come first) */
#define e2f_com_err(ctx, ...)			\
	do {					\
		e2fsck_banner(ctx);		\
		com_err(__VA_ARGS__);		\
	} while (0)

/* the filesystem (re)opened as the journal phase opens it, and its flags */
errcode_t open_fs(struct e2fsck_ctx *ctx, int flags, io_manager io);
int fs_open_flags(struct e2fsck_ctx *ctx);
/* the superblock written whole, in one write (ej_fs_write_super) */
errcode_t e2fsck_write_super(struct e2fsck_ctx *ctx);
/* ext2fs_close_free(), the superblock written by e2fsck_write_super() */
errcode_t e2fsck_close_fs(struct e2fsck_ctx *ctx);

/* SIGINT/SIGTERM before the engine runs */
void e2fsck_catch_cancel(int at_question);
int e2fsck_cancel_caught(void);
int e2fsck_cancelled(void);

/* devices by tag or number, through libblkid (malloc'ed, NULL if none) */
char *e2fsck_find_dev(const char *token, const char *value);
char *e2fsck_find_devno(unsigned long devno);
/* give back the libblkid cache */
void e2fsck_put_blkid(void);

/* conf.c */
void e2fsck_read_conf(struct e2fsck_ctx *ctx);

/* progress.c */
void e2f_progress_start(struct e2fsck_ctx *ctx, struct ej_report *r);
void e2f_progress_end(struct e2fsck_ctx *ctx);

/* engine.c: e2fsprogs' e2fsck for passes 1-5 */
void check_engine(struct e2fsck_ctx *ctx);
_Noreturn void exec_engine(struct e2fsck_ctx *ctx, char **argv);
int run_engine_relayed(struct e2fsck_ctx *ctx, char **argv);
/* the engine printed "FILE SYSTEM WAS MODIFIED" */
extern int engine_said_modified;

/* journal.c */
enum e2f_journal_action e2fsck_journal_phase(struct e2fsck_ctx *ctx);

#endif /* E2JOURNAL_E2FSCK_H */
