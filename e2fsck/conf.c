// SPDX-License-Identifier: GPL-2.0
/*
 * conf.c: the one setting our e2fsck takes from e2fsck.conf,
 *
 *	[options]
 *		journal_policy = replay-all | stop | refuse
 *
 * The file is the one e2fsck reads: $E2FSCK_CONFIG, else /etc/e2fsck.conf;
 * a file that is missing is no error.  The format is the profile format of
 * e2fsck.conf(5), read by a small parser of our own that understands just
 * enough of it to find one relation: [section] lines (an optional '*'
 * after the bracket marks it final), "tag = value" relations (a value may
 * be a "quoted string" with \n, \t, \b and \\ escapes), "tag = {" ... "}"
 * subsections, nested to any depth, and comment lines starting with '#'
 * or ';'.  The first journal_policy relation of the [options] section (at
 * its top level, not in a subsection) is the one taken, as e2fsck's
 * profile library takes the first value of a relation.
 *
 * The engine reads the same file; it ignores relations it does not know.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2fsck.h"

#define CONF_DEFAULT	"/etc/e2fsck.conf"

static char *skip_blanks(char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

static void trim_end(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
}

/* Unquote a "string" in place; -1 if it is not closed. */
static int unquote(char *s)
{
	char *in = s + 1, *out = s;

	for (; *in && *in != '"'; in++) {
		if (*in != '\\') {
			*out++ = *in;
			continue;
		}
		switch (*++in) {
		case 'n':
			*out++ = '\n';
			break;
		case 't':
			*out++ = '\t';
			break;
		case 'b':
			*out++ = '\b';
			break;
		case 0:
			return -1;
		default:
			*out++ = *in;
			break;
		}
	}
	if (*in != '"')
		return -1;
	*out = 0;
	return 0;
}

/*
 * Read @path looking for [options] journal_policy.  Returns 0 and the
 * value in *value (malloc'd, NULL when the file does not set it), or the
 * line number of the first line that is not profile syntax.
 */
static int conf_scan(FILE *f, char **value)
{
	char line[2048];
	int lineno = 0, depth = 0, in_options = 0;

	*value = NULL;
	while (fgets(line, sizeof(line), f)) {
		char *p, *tag, *eq, *val;

		lineno++;
		trim_end(line);
		p = skip_blanks(line);
		if (!*p || *p == '#' || *p == ';')
			continue;
		if (*p == '[') {
			char *close = strchr(p, ']');

			if (depth || !close)
				return lineno;
			close[0] = 0;
			if (close[1] && strcmp(close + 1, "*"))
				return lineno;
			in_options = !strcmp(p + 1, "options");
			continue;
		}
		if (*p == '}') {
			if (!depth || (p[1] && strcmp(p + 1, "*")))
				return lineno;
			depth--;
			continue;
		}
		/* tag = value, tag = {, the tag ends at a blank or '=' */
		tag = p;
		while (*p && *p != '=' && !isspace((unsigned char)*p))
			p++;
		eq = skip_blanks(p);
		if (p == tag || *eq != '=')
			return lineno;
		*p = 0;
		val = skip_blanks(eq + 1);
		if (!strcmp(val, "{")) {
			depth++;
			continue;
		}
		if (*val == '"' && unquote(val))
			return lineno;
		if (in_options && !depth && !*value &&
		    !strcmp(tag, "journal_policy")) {
			*value = strdup(val);
			if (!*value)
				return lineno;
		}
	}
	if (depth)
		return lineno + 1;
	return 0;
}

/*
 * Take journal_policy from e2fsck.conf unless the command line set it.
 * A file that cannot be parsed is left to the engine, which reports it as
 * e2fsck does; an unknown policy name is an error of ours.
 */
void e2fsck_read_conf(struct e2fsck_ctx *ctx)
{
	const char *path = getenv("E2FSCK_CONFIG");
	char *value = NULL;
	int bad_line;
	FILE *f;

	if (!path)
		path = CONF_DEFAULT;
	f = fopen(path, "r");
	if (!f)
		return;
	bad_line = conf_scan(f, &value);
	fclose(f);
	if (bad_line) {
		free(value);
		ctx->conf_bad = 1;
		return;
	}
	if (!value)
		return;
	if (!ctx->policy_set) {
		if (ej_policy_parse(value, &ctx->policy)) {
			log_err(ctx,
				"%s: invalid journal_policy \"%s\" in %s (replay-all, stop or refuse)\n",
				ctx->program_name, value, path);
			free(value);
			exit(FSCK_ERROR);
		}
		ctx->policy_set = 2;
	}
	free(value);
}
