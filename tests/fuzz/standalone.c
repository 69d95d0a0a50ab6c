// SPDX-License-Identifier: GPL-2.0
/*
 * standalone.c: a main() for the libFuzzer harnesses, so that they build
 * with any C compiler as plain programs (make check builds them so).
 * Each argument is a file, or a directory whose files are read, given to
 * LLVMFuzzerTestOneInput() once each.  A harness that finds something
 * traps; this prints how many inputs ran.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path, unsigned long *runs)
{
	unsigned char *buf = NULL;
	long len;
	FILE *f;
	int ret = 1;

	f = fopen(path, "rb");
	if (!f)
		goto out;
	if (fseek(f, 0, SEEK_END))
		goto out;
	len = ftell(f);
	if (len < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	buf = malloc(len ? len : 1);
	if (!buf || fread(buf, 1, len, f) != (size_t)len)
		goto out;
	LLVMFuzzerTestOneInput(buf, len);
	(*runs)++;
	ret = 0;
out:
	if (ret)
		perror(path);
	if (f)
		fclose(f);
	free(buf);
	return ret;
}

static int run_dir(const char *dir, unsigned long *runs)
{
	struct dirent *de;
	char path[4096];
	struct stat st;
	int ret = 0;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		perror(dir);
		return 1;
	}
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		ret |= run_file(path, runs);
	}
	closedir(d);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned long runs = 0;
	struct stat st;
	int i, ret = 0;

	for (i = 1; i < argc; i++) {
		if (!stat(argv[i], &st) && S_ISDIR(st.st_mode))
			ret |= run_dir(argv[i], &runs);
		else
			ret |= run_file(argv[i], &runs);
	}
	printf("%s: %lu input(s)\n", argv[0], runs);
	return ret || !runs;
}
