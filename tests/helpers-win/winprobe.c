/*
 * A console program for the Wine tests of srt-win (built by `make win` into
 * build/win/tests/winprobe.exe):
 *   winprobe exit N          exit with status N
 *   winprobe args A...       print each argument as [A]
 *   winprobe env             print the environment, one variable per line
 *   winprobe beat FILE       write a rising counter to FILE every 50 ms, forever
 *   winprobe tree FILE       start `winprobe beat FILE`, then sleep forever
 *   winprobe hold FILE       write its process id to FILE, then sleep forever
 *   winprobe alive PID       print "alive" or "gone"
 *   winprobe kill PID        end that process
 *   winprobe trapint FILE    on Ctrl-C exit 7 a second later; write FILE once the handler
 *                            is set, then
 *                            wait up to 30 s (exit 9)
 *   winprobe ctrlc FILE OUT CMD...
 *                            run CMD on this console, give the console a Ctrl-C once
 *                            FILE exists, write CMD's exit status to OUT (Wine delivers
 *                            it only with a console: run under script(1))
 *   winprobe handles P W S X what it inherited at these handle values: prints the file P
 *                            from its start, writes "pipe" to W, tells whether S is a
 *                            listener's carrier (srt-launch/common/winsys.h) holding a
 *                            listening socket, and whether X is open at all
 *   winprobe launch --plan F ...  as srt-win for srt.exe: print the plan file F, then
 *                            exit 15 as srt-win does where no sandbox account is made
 *   winprobe dacl PATH       read PATH's DACL back as a new open of it: one line per
 *                            explicit allow or deny entry, `deny|allow SID 0xMASK OICI|-`
 */
#include <winsock2.h>
#include <windows.h>

#include <aclapi.h>
#include <sddl.h>

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

static BOOL WINAPI
exit_on_ctrl(DWORD type)
{
	if (type != CTRL_C_EVENT)
		return FALSE;
	Sleep(1000); /* a command's clean-up: whoever waits for it must outlast it */
	ExitProcess(7);
}

static BOOL WINAPI
keep_on_ctrl(DWORD type)
{
	return type == CTRL_C_EVENT;
}

static int
trapint(const char *path)
{
	FILE *f;

	SetConsoleCtrlHandler(NULL, FALSE);
	SetConsoleCtrlHandler(exit_on_ctrl, TRUE);
	if ((f = fopen(path, "w")) != NULL)
		fclose(f);
	Sleep(30000);
	return 9;
}

/* The console's Ctrl-C to every process on it (group 0), ours included, which keeps. */
static int
ctrlc(const char *flag, const char *out, char **cmdv)
{
	STARTUPINFOA si;
	PROCESS_INFORMATION pi;
	char cmd[4096] = "";
	DWORD code = 255;
	FILE *f;
	int i;

	for (; *cmdv != NULL; cmdv++) {
		strncat(cmd, "\"", sizeof(cmd) - strlen(cmd) - 1);
		strncat(cmd, *cmdv, sizeof(cmd) - strlen(cmd) - 1);
		strncat(cmd, "\" ", sizeof(cmd) - strlen(cmd) - 1);
	}
	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	SetConsoleCtrlHandler(keep_on_ctrl, TRUE);
	if (!CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
		return 3;
	for (i = 0; i < 1200 && GetFileAttributesA(flag) == INVALID_FILE_ATTRIBUTES; i++)
		Sleep(50);
	if (!GenerateConsoleCtrlEvent(CTRL_C_EVENT, 0))
		code = 1000 + GetLastError();
	else if (WaitForSingleObject(pi.hProcess, 30000) != WAIT_OBJECT_0 ||
	    !GetExitCodeProcess(pi.hProcess, &code))
		code = 254;
	if ((f = fopen(out, "w")) != NULL) {
		fprintf(f, "%lu\n", (unsigned long)code);
		fclose(f);
	}
	return 0;
}

static HANDLE
handle_arg(const char *s)
{
	return (HANDLE)(intptr_t)strtoll(s, NULL, 10);
}

static int
handles(char **v)
{
	HANDLE pol = handle_arg(v[0]), w = handle_arg(v[1]), c = handle_arg(v[2]);
	HANDLE x = handle_arg(v[3]);
	WSAPROTOCOL_INFOW info;
	SOCKET s;
	char buf[256];
	DWORD n = 0, fl;
	WSADATA wd;
	int on = 0, len = (int)sizeof(on);

	if (ReadFile(pol, buf, sizeof(buf) - 1, &n, NULL)) {
		buf[n] = '\0';
		printf("file: %s\n", buf);
	} else
		printf("file: not readable (%lu)\n", (unsigned long)GetLastError());
	printf("pipe: %s\n", WriteFile(w, "pipe\n", 5, &n, NULL) ? "written" : "not writable");
	WSAStartup(MAKEWORD(2, 2), &wd);
	/* The carrier holds the socket's WSAPROTOCOL_INFOW, duplicated for this process. */
	if (!ReadFile(c, &info, sizeof(info), &n, NULL) || n != sizeof(info))
		printf("socket: no WSAPROTOCOL_INFOW (%lu)\n", (unsigned long)GetLastError());
	else if ((s = WSASocketW(FROM_PROTOCOL_INFO, FROM_PROTOCOL_INFO, FROM_PROTOCOL_INFO,
		      &info, 0, WSA_FLAG_OVERLAPPED)) == INVALID_SOCKET)
		printf("socket: WSASocketW failed (%d)\n", WSAGetLastError());
	else if (getsockopt(s, SOL_SOCKET, SO_ACCEPTCONN, (char *)&on, &len) == 0)
		printf("socket: %s\n", on ? "listening" : "not listening");
	else
		printf("socket: not a socket to this Winsock (%d)\n", WSAGetLastError());
	printf("other: %s\n", GetHandleInformation(x, &fl) ? "open" : "not inherited");
	fflush(stdout);
	return 0;
}

/* What srt-win left on PATH, read through a handle of its own. */
static int
dacl(const char *path)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	PACL acl = NULL;
	ACL_SIZE_INFORMATION si;
	DWORD rc;

	rc = GetNamedSecurityInfoA(
	    path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &acl, NULL, &sd);
	if (rc != ERROR_SUCCESS) {
		fprintf(stderr, "winprobe: GetNamedSecurityInfoA %s: %lu\n", path,
		    (unsigned long)rc);
		return 3;
	}
	if (acl == NULL || !GetAclInformation(acl, &si, sizeof(si), AclSizeInformation))
		si.AceCount = 0;
	for (DWORD i = 0; i < si.AceCount; i++) {
		ACE_HEADER *h;
		ACCESS_ALLOWED_ACE *x;
		char *sid = NULL;

		if (!GetAce(acl, i, (LPVOID *)&h) || (h->AceFlags & INHERITED_ACE) ||
		    (h->AceType != ACCESS_ALLOWED_ACE_TYPE &&
			h->AceType != ACCESS_DENIED_ACE_TYPE))
			continue;
		x = (ACCESS_ALLOWED_ACE *)h;
		if (!ConvertSidToStringSidA((PSID)&x->SidStart, &sid))
			continue;
		printf("%s %s 0x%08lx %s\n",
		    h->AceType == ACCESS_DENIED_ACE_TYPE ? "deny" : "allow", sid,
		    (unsigned long)x->Mask,
		    (h->AceFlags & (OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE)) ==
			    (OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE)
			? "OICI"
			: "-");
		LocalFree(sid);
	}
	LocalFree(sd);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "dacl") == 0)
		return dacl(argv[2]);
	if (argc == 6 && strcmp(argv[1], "handles") == 0)
		return handles(argv + 2);
	if (argc == 3 && strcmp(argv[1], "kill") == 0) {
		HANDLE h = OpenProcess(
		    PROCESS_TERMINATE, FALSE, (DWORD)strtoul(argv[2], NULL, 10));

		return h != NULL && TerminateProcess(h, 9) ? 0 : 1;
	}
	if (argc == 3 && strcmp(argv[1], "alive") == 0) {
		HANDLE h = OpenProcess(SYNCHRONIZE, FALSE, (DWORD)strtoul(argv[2], NULL, 10));

		printf("%s\n",
		    h != NULL && WaitForSingleObject(h, 0) == WAIT_TIMEOUT ? "alive" : "gone");
		return 0;
	}
	if (argc >= 4 && strcmp(argv[1], "launch") == 0 && strcmp(argv[2], "--plan") == 0) {
		FILE *f = fopen(argv[3], "rb");
		char buf[4096];
		size_t n;

		if (f == NULL)
			return 3;
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, stdout);
		fclose(f);
		return 15;
	}
	if (argc == 3 && strcmp(argv[1], "trapint") == 0)
		return trapint(argv[2]);
	if (argc >= 5 && strcmp(argv[1], "ctrlc") == 0)
		return ctrlc(argv[2], argv[3], argv + 4);
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
	fprintf(stderr,
	    "usage: winprobe exit N | args A... | env | beat FILE | tree FILE | "
	    "hold FILE | alive PID | kill PID | trapint FILE | ctrlc FILE OUT CMD... | "
	    "handles P W S X | launch --plan FILE ... | dacl PATH\n");
	return 2;
}
