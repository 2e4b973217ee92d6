/*
 * A console program for the Wine tests of srt-win (built by `make win` into
 * build/win/tests/winprobe.exe):
 *   winprobe exit N          exit with status N
 *   winprobe args A...       print each argument as [A]
 *   winprobe env             print the environment, one variable per line
 *   winprobe beat FILE       write a rising counter to FILE every 50 ms, forever
 *   winprobe tree FILE       start `winprobe beat FILE`, then sleep forever
 *   winprobe hold FILE       write its process id to FILE, then sleep forever
 */
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
beat(const char *path)
{
	for (unsigned long n = 1;; n++) {
		FILE *f = fopen(path, "w");

		if (f != NULL) {
			fprintf(f, "%lu\n", n);
			fclose(f);
		}
		Sleep(50);
	}
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "exit") == 0)
		return atoi(argv[2]);
	if (argc >= 2 && strcmp(argv[1], "args") == 0) {
		for (int i = 2; i < argc; i++)
			printf("[%s]\n", argv[i]);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "env") == 0) {
		char *block = GetEnvironmentStringsA();

		for (char *p = block; *p; p += strlen(p) + 1)
			if (*p != '=')
				printf("%s\n", p);
		FreeEnvironmentStringsA(block);
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "beat") == 0)
		beat(argv[2]);
	if (argc == 3 && strcmp(argv[1], "hold") == 0) {
		FILE *f = fopen(argv[2], "w");

		if (f == NULL)
			return 3;
		fprintf(f, "%lu\n", (unsigned long)GetCurrentProcessId());
		fclose(f);
		for (;;)
			Sleep(1000);
	}
	if (argc == 3 && strcmp(argv[1], "tree") == 0) {
		char self[MAX_PATH], cmd[3 * MAX_PATH];
		STARTUPINFOA si = { 0 };
		PROCESS_INFORMATION pi;

		si.cb = sizeof(si);
		GetModuleFileNameA(NULL, self, sizeof(self));
		snprintf(cmd, sizeof(cmd), "\"%s\" beat \"%s\"", self, argv[2]);
		if (!CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
			return 3;
		for (;;)
			Sleep(1000);
	}
	fprintf(stderr, "usage: winprobe exit N | args A... | env | beat FILE | tree FILE | hold FILE\n");
	return 2;
}
