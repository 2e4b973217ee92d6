/*
 * srt-win's logic on Linux, against the recording fake of winapi.h (srt-win/winapi_fake.c),
 * which keeps each path's DACL in $SRT_WIN_FAKE_DIR: the plan reader, the rights, grant
 * and revoke, refcounts across two holders, crash recovery, rollback when Windows fails,
 * entries that were there before, placeholders, the records, the environment, command
 * lines, the install's filter set and the option parser.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srt-win.h"
#include "tap.h"
#include "wincmdline.h"

#define SID "S-1-5-21-1-2-3-1001"
#define SID2 "S-1-5-21-1-2-3-1002"

static char root[4096], fake[4200];

static char *
at(const char *rel)
{
	static char buf[8][8192];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", root, rel);
	return buf[i];
}

/* The refusals print their JSON error lines; keep them out of the TAP output. */
static int saved_err = -1;

static void
quiet(void)
{
	int fd = open("/dev/null", O_WRONLY);

	fflush(stderr);
	saved_err = dup(2);
	dup2(fd, 2);
	close(fd);
}

static void
loud(void)
{
	fflush(stderr);
	dup2(saved_err, 2);
	close(saved_err);
}

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

/* A fresh fake machine: no DACL entries, no records. */
static void
fresh(void)
{
	char p[4300];

	nftw(fake, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	mkdir(fake, 0700);
	snprintf(p, sizeof(p), "%s/calls.log", fake);
	unsetenv("SRT_WIN_FAKE_FAIL");
}

/* A holder: a child process that sleeps until killed. */
static pid_t
holder(void)
{
	pid_t p = fork();

	if (p == 0) {
		for (;;)
			pause();
	}
	return p;
}

static void
end(pid_t p)
{
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
}

static uint64_t
start_of(pid_t p)
{
	uint64_t s = 0;

	wa_process_alive((unsigned long)p, 0, &s);
	return s;
}

/* The DACL entries of path in the fake, as "deny:SID:0xMASK:flags" words. */
static char *
dacl_of(const char *path)
{
	struct wa_dacl d;
	struct buf b = { 0 };

	buf_add(&b, "", 0);
	if (wa_dacl_get(path, &d) != 0)
		return xstrdup("(error)");
	for (size_t i = 0; i < d.n; i++)
		buf_addf(&b, "%s%s:%s:0x%lx:%u", i ? " " : "", d.v[i].deny ? "deny" : "allow",
		    d.v[i].sid, (unsigned long)d.v[i].mask, (unsigned)d.v[i].flags);
	wa_dacl_free(&d);
	return buf_steal(&b);
}

static int
dacl_is(const char *path, const char *want)
{
	char *got = dacl_of(path);
	int ok = strcmp(got, want) == 0;

	if (!ok)
		printf("#   %s: want \"%s\", got \"%s\"\n", path, want, got);
	free(got);
	return ok;
}

static int
parse(const char *text, struct plan_windows *p)
{
	return plan_parse(text, strlen(text), p);
}

/* One plan line; the last eight stay valid. */
static const char *
line(const char *ace, const char *rel, const char *rights, const char *inh)
{
	static char buf[8][8400];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]),
	    "{\"ace\":\"%s\",\"path\":\"%s\",\"rights\":[%s],"
	    "\"inherit\":\"%s\"}\n",
	    ace, at(rel), rights, inh);
	return buf[i];
}

struct hm {
	enum rec_kind kind;
	unsigned long pid;
};

static int
match_pid(const struct rec *r, const void *arg)
{
	const struct hm *m = arg;

	return r->kind == m->kind && r->pid == m->pid;
}

/* apply text for holder pid, under the lock, and save */
static int
apply_as(const char *text, pid_t pid, const char *sid, struct acl_results *res)
{
	struct plan_windows plan;
	struct state st;
	int r;

	if (parse(text, &plan) != 0)
		return -9;
	if (state_open(&st) != 0) {
		plan_windows_free(&plan);
		return -8;
	}
	r = acl_apply(
	    &st, &plan, sid, RK_GRANT, (unsigned long)pid, start_of(pid), NULL, NULL, res);
	state_save(&st);
	state_close(&st);
	plan_windows_free(&plan);
	return r;
}

static int
release_as(pid_t pid, struct acl_results *res)
{
	struct state st;
	struct hm m = { RK_GRANT, (unsigned long)pid };
	int r;

	if (state_open(&st) != 0)
		return -8;
	r = acl_release(&st, match_pid, &m, res);
	state_save(&st);
	state_close(&st);
	return r;
}

static size_t
records(void)
{
	struct state st;
	size_t n;

	if (state_open(&st) != 0)
		return (size_t)-1;
	n = st.n;
	state_close(&st);
	return n;
}

static const char *
status_of(const struct acl_results *r, const char *path)
{
	for (size_t i = 0; i < r->path.n; i++)
		if (strcmp(r->path.v[i], path) == 0)
			return r->status[i];
	return "(none)";
}

static void
test_rights(void)
{
	ok(ace_mask(0, SR_MODIFY) == 0x001301bf, "allow modify is icacls' M (0x1301bf)");
	ok(!(ace_mask(0, SR_MODIFY) & 0x40), "allow modify has no FILE_DELETE_CHILD");
	ok(ace_mask(0, SR_READ | SR_EXECUTE) == 0x001200a9, "allow read+execute is RX");
	ok(ace_mask(1, SR_READ) == 0x29, "deny read: data, EAs, execute");
	ok(ace_mask(1, SR_WRITE) == 0x000d0156,
	    "deny write: data, append, attributes, EAs, "
	    "delete, delete-child, DACL, owner");
	ok(ace_mask(1, SR_DELETE_CHILD) == 0x40, "deny delete_child is FILE_DELETE_CHILD");
	ok(ace_mask(1, SR_DELETE) == 0x10000, "deny delete is DELETE alone");
	ok(!(ace_mask(1, SR_READ | SR_WRITE | SR_EXECUTE | SR_MODIFY) & 0x00120000),
	    "no deny takes SYNCHRONIZE or READ_CONTROL");
}

static void
test_plan_parse(void)
{
	struct plan_windows p;
	char *t;
	int r;

	t = xasprintf("%s\n  \r\n%s", line("allow", "proj", "\"modify\"", "OICI"),
	    line("deny", "proj/.env", "\"write\"", ""));
	ok(parse(t, &p) == 0 && p.n == 2 && !p.v[0].deny && p.v[0].rights == SR_MODIFY &&
		p.v[0].inherit && p.v[1].deny && p.v[1].rights == SR_WRITE && !p.v[1].inherit &&
		strcmp(p.v[1].path, at("proj/.env")) == 0,
	    "JSON lines: entries in order, blank "
	    "lines and CRLF taken");
	plan_windows_free(&p);
	free(t);
	t = xasprintf("%s%s", line("allow", "proj", "\"read\",\"execute\"", "OICI"),
	    line("allow", "proj", "\"read\",\"execute\"", "OICI"));
	ok(parse(t, &p) == 0 && p.n == 1, "a repeated entry counts once");
	plan_windows_free(&p);
	free(t);
	t = xasprintf("%s", line("deny", "proj", "\"delete\"", ""));
	ok(parse(t, &p) == 0 && p.n == 1 && p.v[0].deny && p.v[0].rights == SR_DELETE &&
		!p.v[0].inherit,
	    "DENY delete is parsed");
	plan_windows_free(&p);
	free(t);

	static const struct {
		const char *text, *what;
	} bad[] = {
		{ "{\"ace\":\"allow\",\"path\":\"/x\",\"rights\":[\"delete_child\"],"
		  "\"inherit\":\"\"}",
		    "ALLOW delete_child is refused" },
		{ "{\"ace\":\"allow\",\"path\":\"/x\",\"rights\":[\"delete\"],"
		  "\"inherit\":\"\"}",
		    "ALLOW delete is refused" },
		{ "{\"ace\":\"allow\",\"path\":\"/x\",\"rights\":[\"modify\",\"delete\"],"
		  "\"inherit\":\"OICI\"}",
		    "ALLOW delete is refused beside another right" },
		{ "{\"ace\":\"allow\",\"path\":\"/x\",\"rights\":[],\"inherit\":\"\"}",
		    "empty rights" },
		{ "{\"ace\":\"allow\",\"path\":\"/x\",\"rights\":[\"read\",\"read\"],"
		  "\"inherit\":\"\"}",
		    "a repeated right" },
		{ "{\"ace\":\"allow\",\"path\":\"/x\",\"rights\":[\"all\"],\"inherit\":\"\"}",
		    "an unknown right" },
		{ "{\"ace\":\"audit\",\"path\":\"/x\",\"rights\":[\"read\"],\"inherit\":\"\"}",
		    "an unknown kind" },
		{ "{\"ace\":\"deny\",\"path\":\"x/y\",\"rights\":[\"read\"],\"inherit\":\"\"}",
		    "a relative path" },
		{ "{\"ace\":\"deny\",\"path\":\"/a/../etc\",\"rights\":[\"read\"],"
		  "\"inherit\":\"\"}",
		    "a path with .." },
		{ "{\"ace\":\"deny\",\"path\":\"/a/*.pem\",\"rights\":[\"read\"],"
		  "\"inherit\":\"\"}",
		    "a glob" },
		{ "{\"ace\":\"deny\",\"path\":\"/a\",\"rights\":[\"read\"],\"inherit\":\"CI\"}",
		    "an inherit other than OICI or empty" },
		{ "{\"ace\":\"deny\",\"path\":\"/a\",\"rights\":[\"read\"],\"inherit\":\"\","
		  "\"extra\":1}",
		    "an unknown key" },
		{ "{\"ace\":\"deny\",\"ace\":\"allow\",\"path\":\"/a\",\"rights\":[\"read\"],"
		  "\"inherit\":\"\"}",
		    "a duplicate key" },
		{ "{\"ace\":\"deny\",\"path\":\"/a\\u0000b\",\"rights\":[\"read\"],"
		  "\"inherit\":\"\"}",
		    "a NUL in a path" },
		{ "[1,2]", "not an object" },
		{ "{\"ace\":\"deny\"", "truncated JSON" },
		{ "{\"read\":[\"/x\"],\"extra\":[]}", "the object form with an unknown key" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		quiet();
		r = parse(bad[i].text, &p);
		loud();
		ok(r == -1 && p.n == 0, "refused: %s", bad[i].what);
	}
	{
		/* One bad line refuses the whole plan: nothing is applied in part. */
		char *two = xasprintf(
		    "%s{\"ace\":1}\n", line("allow", "proj", "\"modify\"", "OICI"));
		quiet();
		r = parse(two, &p);
		loud();
		ok(r == -1 && p.n == 0, "one bad line refuses the whole plan");
		free(two);
	}

	/* The reference library's object form follows the same rules. */
	t = xasprintf("{\"read\":[\"%s\"],\"write\":[\"%s\"],\"denyRead\":[\"%s\"],"
		      "\"denyWrite\":[\"%s\",\"%s/\"]}",
	    at("home/tools"), at("proj"), at("home/.ssh"), at("proj/.env"), at("proj/missing"));
	r = parse(t, &p);
	/* .ssh and home, .env and proj, missing (proj's entry once): 5 denies, 2 grants,
	 * and the write root's DELETE denied */
	ok(r == 0 && p.n == 8, "object form: %zu entries (%d)", p.n, r);
	if (p.n == 8) {
		ok(p.v[0].deny && p.v[0].rights == SR_READ && p.v[0].inherit && p.v[1].deny &&
			p.v[1].rights == SR_DELETE_CHILD &&
			strcmp(p.v[1].path, at("home")) == 0 && !p.v[1].inherit,
		    "object form: denyRead -> DENY read, DENY delete_child on the parent");
		ok(p.v[2].rights == SR_WRITE && !p.v[2].inherit && p.v[4].rights == SR_WRITE &&
			p.v[4].inherit,
		    "object form: a missing deny ending in / is a directory");
		ok(!p.v[5].deny && p.v[5].rights == (SR_READ | SR_EXECUTE) && p.v[5].inherit &&
			!p.v[6].deny && p.v[6].rights == SR_MODIFY,
		    "object form: read -> read+execute, write -> modify");
		ok(p.v[7].deny && p.v[7].rights == SR_DELETE && !p.v[7].inherit &&
			strcmp(p.v[7].path, at("proj")) == 0,
		    "object form: a directory write root's own DELETE is denied");
	}
	plan_windows_free(&p);
	free(t);
	t = xasprintf(
	    "{\"write\":[\"%s\"],\"denyWrite\":[\"%s\"]}", at("proj"), at("proj/.git/hooks"));
	r = parse(t, &p);
	ok(r == 0 && p.n == 6 && p.v[3].rights == SR_DELETE &&
		strcmp(p.v[3].path, at("proj")) == 0 && p.v[4].deny &&
		p.v[4].rights == SR_DELETE && !p.v[4].inherit &&
		strcmp(p.v[4].path, at("proj/.git")) == 0 && p.v[5].deny &&
		p.v[5].rights == SR_DELETE_CHILD && strcmp(p.v[5].path, at("proj")) == 0,
	    "object form: a deny's ancestors in a write root cannot be renamed (%zu)", p.n);
	plan_windows_free(&p);
	free(t);
}

static void
test_grant_revoke(void)
{
	struct acl_results res = { 0 };
	pid_t h = holder();
	char *t;
	int r;

	fresh();
	t = xasprintf("%s%s%s", line("allow", "proj", "\"modify\"", "OICI"),
	    line("deny", "proj/.env", "\"write\"", ""),
	    line("deny", "proj", "\"delete_child\"", ""));
	r = apply_as(t, h, SID, &res);
	ok(r == 0, "grant: applied (%d)", r);
	ok(dacl_is(at("proj"), "deny:" SID ":0x40:0 allow:" SID ":0x1301bf:3"),
	    "grant: the directory has the deny first, then the inherited modify");
	ok(dacl_is(at("proj/.env"), "deny:" SID ":0xd0156:0"), "grant: the file its deny");
	ok(strcmp(status_of(&res, at("proj/.env")), "denied") == 0, "grant: statuses");
	ok(records() == 3, "grant: three records");
	results_free(&res);
	r = release_as(h, &res);
	ok(r == 0 && dacl_is(at("proj"), "") && dacl_is(at("proj/.env"), "") && records() == 0,
	    "revoke: every entry gone, no records left");
	ok(res.path.n == 3 && strcmp(res.status[0], "revoked") == 0, "revoke: statuses");
	results_free(&res);
	end(h);
	free(t);
}

static void
test_two_holders(void)
{
	struct acl_results res = { 0 };
	pid_t a = holder(), b = holder();
	const char *shared = line("allow", "proj", "\"modify\"", "OICI");
	const char *own = line("deny", "proj/.env", "\"write\"", "");
	char *both = xasprintf("%s%s", shared, own);

	fresh();
	ok(apply_as(both, a, SID, NULL) == 0 && apply_as(shared, b, SID, &res) == 0,
	    "two holders grant one entry");
	ok(strcmp(status_of(&res, at("proj")), "held") == 0, "the second holder shares it");
	ok(dacl_is(at("proj"), "allow:" SID ":0x1301bf:3"), "one entry in the DACL");
	results_free(&res);
	release_as(a, &res);
	ok(dacl_is(at("proj"), "allow:" SID ":0x1301bf:3") && dacl_is(at("proj/.env"), ""),
	    "the first holder's revoke keeps the shared entry, removes its own");
	ok(strcmp(status_of(&res, at("proj")), "stillHeld") == 0, "status stillHeld");
	results_free(&res);
	release_as(b, &res);
	ok(dacl_is(at("proj"), "") && records() == 0, "the last holder's revoke removes it");
	results_free(&res);
	/* Different SIDs are different entries. */
	apply_as(shared, a, SID, NULL);
	apply_as(shared, b, SID2, NULL);
	release_as(a, NULL);
	ok(dacl_is(at("proj"), "allow:" SID2 ":0x1301bf:3"), "another SID's entry stays");
	release_as(b, NULL);
	end(a);
	end(b);
	free(both);
}

/*
 * The entries that keep a deny's ancestors in place (DENY delete on the write root and on
 * the directories down to the deny, delete-child on their parents), granted by two
 * holders over another SID's entries: the revokes leave every descriptor as it was.
 */
static void
test_delete_aces(void)
{
	static const char *const paths[] = { "proj", "proj/.git", "proj/.git/hooks" };
	struct acl_results res = { 0 };
	pid_t a = holder(), b = holder(), other = holder();
	char *plan, *before[3];
	int r;

	fresh();
	plan = xasprintf("%s%s%s%s%s%s", line("allow", "proj", "\"modify\"", "OICI"),
	    line("deny", "proj", "\"delete\"", ""),
	    line("deny", "proj/.git/hooks", "\"write\"", "OICI"),
	    line("deny", "proj/.git", "\"delete_child\"", ""),
	    line("deny", "proj/.git", "\"delete\"", ""),
	    line("deny", "proj", "\"delete_child\"", ""));
	apply_as(line("allow", "proj", "\"read\",\"execute\"", "OICI"), other, SID2, NULL);
	for (size_t i = 0; i < 3; i++)
		before[i] = dacl_of(at(paths[i]));
	r = apply_as(plan, a, SID, NULL);
	ok(r == 0 && apply_as(plan, b, SID, &res) == 0, "delete entries: two holders grant");
	ok(dacl_is(at("proj/.git"), "deny:" SID ":0x40:0 deny:" SID ":0x10000:0"),
	    "delete entries: .git keeps its delete-child and its own DELETE deny, uninherited");
	ok(dacl_is(at("proj"),
	       "deny:" SID ":0x10000:0 deny:" SID ":0x40:0 allow:" SID2 ":0x1200a9:3 allow:" SID
	       ":0x1301bf:3"),
	    "delete entries: the root's DELETE "
	    "denied on it alone, before the grants");
	results_free(&res);
	release_as(a, NULL);
	ok(dacl_is(at("proj/.git"), "deny:" SID ":0x40:0 deny:" SID ":0x10000:0"),
	    "delete entries: the first revoke keeps what the second holder holds");
	release_as(b, NULL);
	for (size_t i = 0; i < 3; i++) {
		ok(dacl_is(at(paths[i]), before[i]), "delete entries: %s as before", paths[i]);
		free(before[i]);
	}
	ok(records() == 1, "delete entries: only the other SID's record left");
	release_as(other, NULL);
	end(a);
	end(b);
	end(other);
	free(plan);
}

static void
test_recover(void)
{
	struct state st;
	pid_t live = holder(), dead = holder();
	const char *shared = line("allow", "proj", "\"modify\"", "OICI");
	const char *own = line("deny", "home/.ssh", "\"read\"", "OICI");
	char *both = xasprintf("%s%s", shared, own);
	size_t aces;
	int n;

	fresh();
	apply_as(shared, live, SID, NULL);
	apply_as(both, dead, SID, NULL);
	ok(dacl_is(at("home/.ssh"), "deny:" SID ":0x29:3"),
	    "crash: the dead holder's deny is "
	    "in place");
	end(dead); /* it crashed: no revoke */
	ok(state_open(&st) == 0, "crash: records open");
	n = acl_recover(&st, &aces);
	state_save(&st);
	state_close(&st);
	ok(n == 1 && aces == 1, "recover: one ended holder, one entry removed (%d, %zu)", n,
	    aces);
	ok(dacl_is(at("home/.ssh"), "") && dacl_is(at("proj"), "allow:" SID ":0x1301bf:3"),
	    "recover: its own entry gone, the shared one kept for the live holder");
	ok(records() == 1, "recover: only the live holder's record is left");
	release_as(live, NULL);
	end(live);

	/* A reused pid is not the holder: the start time differs. */
	fresh();
	live = holder();
	apply_as(shared, live, SID, NULL);
	ok(state_open(&st) == 0, "pid reuse: records open");
	st.v[0].start += 1;
	state_save(&st);
	n = acl_recover(&st, &aces);
	state_save(&st);
	state_close(&st);
	ok(n == 1 && dacl_is(at("proj"), ""),
	    "pid reuse: a record whose start time differs "
	    "belongs to an ended holder");
	end(live);
	free(both);
}

static void
test_failures(void)
{
	struct acl_results res = { 0 };
	pid_t h = holder();
	char *t = xasprintf("%s%s", line("deny", "home/.ssh", "\"read\"", "OICI"),
	    line("allow", "proj", "\"modify\"", "OICI"));
	char *p = xasprintf("dacl_set:%s", at("proj"));
	int r;

	fresh();
	setenv("SRT_WIN_FAKE_FAIL", p, 1);
	quiet();
	r = apply_as(t, h, SID, &res);
	loud();
	unsetenv("SRT_WIN_FAKE_FAIL");
	ok(r == -1, "a failed SetNamedSecurityInfoW fails the grant");
	ok(dacl_is(at("home/.ssh"), "") && dacl_is(at("proj"), "") && records() == 0,
	    "and takes back what the grant had already applied");
	results_free(&res);

	/* An entry that was there before srt-win is shared, never removed. */
	{
		struct wa_dacl d = { 0 };
		struct wa_ace a = { 0, (char *)SID, 0x001301bf, 3, NULL, 0 };

		d.v = &a;
		d.n = 1;
		wa_dacl_set(at("proj"), &d);
		apply_as(line("allow", "proj", "\"modify\"", "OICI"), h, SID, &res);
		ok(strcmp(status_of(&res, at("proj")), "present") == 0,
		    "an identical entry "
		    "already there: present");
		results_free(&res);
		release_as(h, &res);
		ok(strcmp(status_of(&res, at("proj")), "kept") == 0 &&
			dacl_is(at("proj"), "allow:" SID ":0x1301bf:3"),
		    "and kept on revoke");
		results_free(&res);
		d.n = 0;
		wa_dacl_set(at("proj"), &d);
	}
	end(h);
	free(t);
	free(p);
}

static void
test_placeholders(void)
{
	struct acl_results res = { 0 };
	pid_t h = holder();
	char *t = xasprintf("%s%s", line("deny", "proj/new/deep/x.cfg", "\"write\"", ""),
	    line("deny", "proj/newdir", "\"read\"", "OICI"));
	struct stat st;

	fresh();
	ok(apply_as(t, h, SID, &res) == 0, "denies on missing paths apply");
	ok(stat(at("proj/new/deep/x.cfg"), &st) == 0 && S_ISREG(st.st_mode) &&
		stat(at("proj/newdir"), &st) == 0 && S_ISDIR(st.st_mode),
	    "placeholders: a file (and its directories) and a directory");
	ok(strcmp(status_of(&res, at("proj/newdir")), "created") == 0, "status created");
	ok(dacl_is(at("proj/new/deep/x.cfg"), "deny:" SID ":0xd0156:0"), "the deny is on it");
	results_free(&res);
	release_as(h, NULL);
	ok(stat(at("proj/new"), &st) == -1 && stat(at("proj/newdir"), &st) == -1,
	    "revoke removes the placeholders and the directories made for them");
	/* A placeholder that got content stays. */
	apply_as(t, h, SID, NULL);
	{
		FILE *f = fopen(at("proj/new/deep/x.cfg"), "w");

		fputs("data", f);
		fclose(f);
	}
	release_as(h, NULL);
	ok(stat(at("proj/new/deep/x.cfg"), &st) == 0, "a placeholder with content is kept");
	unlink(at("proj/new/deep/x.cfg"));
	rmdir(at("proj/new/deep"));
	rmdir(at("proj/new"));
	/* A placeholder directory another holder's entry names stays until that goes. */
	{
		pid_t b = holder();
		char *two = xasprintf("%s%s", line("deny", "proj/new/x.cfg", "\"write\"", ""),
		    line("deny", "proj/new", "\"delete_child\"", ""));

		apply_as(two, h, SID, NULL);
		apply_as(line("deny", "proj/new", "\"delete_child\"", ""), b, SID, NULL);
		release_as(h, NULL);
		ok(stat(at("proj/new/x.cfg"), &st) == -1 && stat(at("proj/new"), &st) == 0,
		    "placeholders: the file goes, the directory another holder names stays");
		release_as(b, NULL);
		ok(stat(at("proj/new"), &st) == -1 && records() == 0,
		    "and goes with that holder's entry");
		end(b);
		free(two);
	}
	/* A grant on a missing path is skipped, the rest applies. */
	{
		int r;

		quiet();
		r = apply_as(line("allow", "nowhere", "\"modify\"", "OICI"), h, SID, &res);
		loud();
		ok(r == 1 && strcmp(status_of(&res, at("nowhere")), "missing") == 0 &&
			records() == 0,
		    "a grant on a missing path: skipped (partial)");
		results_free(&res);
	}
	end(h);
	free(t);
}

static void
test_profile_expansion(void)
{
	struct state st;
	struct plan_windows plan = { 0 }, deny = { 0 };
	pid_t h = holder();

	fresh();
	/* A profile grant on home/tools (the group's), then a session denies home. */
	ok(state_open(&st) == 0, "profile: records open");
	plan_add(&plan, 0, at("home/tools"), SR_READ | SR_EXECUTE, 1);
	acl_apply(&st, &plan, SID2, RK_PROFILE, 0, 0, NULL, NULL, NULL);
	plan_add(&deny, 1, at("home"), SR_READ, 1);
	acl_apply(&st, &deny, SID, RK_GRANT, (unsigned long)h, start_of(h), NULL, NULL, NULL);
	state_save(&st);
	state_close(&st);
	ok(dacl_is(at("home/tools"), "deny:" SID ":0x29:3 allow:" SID2 ":0x1200a9:3"),
	    "a read deny above a profile grant is also set on the granted path");
	release_as(h, NULL);
	ok(dacl_is(at("home/tools"), "allow:" SID2 ":0x1200a9:3"), "and leaves with it");
	plan_windows_free(&deny);
	plan_windows_free(&plan);
	end(h);
}

static void
test_state_format(void)
{
	struct state a = { 0 }, b = { 0 };
	struct rec r = { 0 };
	char *t1, *t2;

	r.kind = RK_KEPT;
	r.pid = 42;
	r.start = 134407626421483110ull; /* a FILETIME: beyond a double's 53 bits */
	r.path = (char *)"C:\\a \"b\"";
	r.ace.sid = (char *)SID;
	r.ace.mask = 0x1301bf;
	r.ace.flags = 3;
	r.owned = 1;
	r.root = (char *)"C:\\a";
	strlist_push(&r.made, "C:\\a\\x");
	state_add(&a, &r);
	strlist_free(&r.made);
	t1 = state_format(&a);
	ok(state_parse(t1, strlen(t1), &b) == 0 && b.n == 1, "records: format -> parse");
	t2 = state_format(&b);
	ok(strcmp(t1, t2) == 0 && b.v[0].start == 134407626421483110ull &&
		strcmp(b.v[0].root, "C:\\a") == 0,
	    "records: the same again, start time exact");
	free(t1);
	free(t2);
	for (size_t i = 0; i < a.n; i++)
		rec_free(&a.v[i]);
	for (size_t i = 0; i < b.n; i++)
		rec_free(&b.v[i]);
	free(a.v);
	free(b.v);
	{
		struct state c = { 0 };
		int r2;

		quiet();
		r2 = state_parse("{\"kind\":\"grant\"}\n", 17, &c);
		loud();
		ok(r2 == -1 && c.n == 0, "a damaged record is refused");
	}
}

static void
test_env(void)
{
	char *base[] = { "SystemRoot=C:\\Windows", "PATH=C:\\user\\bin", "SECRET=1",
		"TEMP=C:\\Users\\srt-sandbox\\Temp", "USERPROFILE=C:\\Users\\srt-sandbox",
		"HTTP_PROXY=http://evil", NULL };
	char *overlay[] = { "Path=C:\\Windows\\system32", "HTTPS_PROXY=http://127.0.0.1:60080",
		NULL };
	struct strlist e, o = { 0 };

	ok(env_name_allowed("PATH") && env_name_allowed("https_proxy") &&
		env_name_allowed("HTTPS_PROXY") && env_name_allowed("GIT_CONFIG_KEY_3") &&
		!env_name_allowed("GIT_CONFIG_KEY_") && !env_name_allowed("SECRET") &&
		!env_name_allowed("LD_PRELOAD") && !env_name_allowed(""),
	    "--env takes PATH and the proxy variables only");
	env_build(base, overlay, &e);
	ok(env_get(e.v, "SECRET") == NULL && env_get(e.v, "http_proxy") == NULL,
	    "the account's other variables are not passed on");
	ok(env_get(e.v, "SystemRoot") != NULL && env_get(e.v, "TEMP") != NULL,
	    "what Windows programs need to start is kept");
	ok(env_get(e.v, "PATH") != NULL &&
		strcmp(env_get(e.v, "PATH"), "C:\\Windows\\system32") == 0 &&
		strlist_contains(&e, "PATH=C:\\Windows\\system32"),
	    "the overlay's PATH replaces the account's, in one spelling");
	ok(strlist_contains(&e, "https_proxy=http://127.0.0.1:60080"),
	    "proxy variables get their one spelling");
	{
		int sorted = 1;

		for (size_t i = 1; i < e.n; i++)
			sorted &= strcasecmp(e.v[i - 1], e.v[i]) <= 0;
		ok(sorted, "sorted by name, ignoring case");
	}
	strlist_free(&e);
	env_proxies(&o, 60081, 60082);
	ok(strlist_contains(&o, "http_proxy=http://127.0.0.1:60081") &&
		strlist_contains(&o, "ftp_proxy=socks5h://127.0.0.1:60082") &&
		strlist_contains(&o, "RSYNC_PROXY=127.0.0.1:60082") &&
		env_get(o.v, "NO_PROXY") == NULL && strlist_contains(&o, "SANDBOX_RUNTIME=1"),
	    "proxy variables for the ports, and no NO_PROXY (loopback is fenced too)");
	for (size_t i = 0; i < o.n; i++) {
		char *name = xstrndup(o.v[i], strcspn(o.v[i], "="));

		if (!env_name_allowed(name))
			ok(0, "%s is set by env_proxies but not allowed", name);
		free(name);
	}
	strlist_free(&o);
}

static void
test_cmdline(void)
{
	static char *cases[][6] = {
		{ "C:\\Program Files\\x.exe", "a b", "", "q\"x", "back\\\\", NULL },
		{ "prog", "tail\\", "\\\"", "\t", "a\\b\\\\\"c", NULL },
		{ "C:\\p\\x.exe", "no-quotes", "-x=1", NULL, NULL, NULL },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct strlist back;
		char *line = wincmdline_join(cases[c]);
		int same = 1;
		size_t n = 0;

		cmdline_split(line, &back);
		for (; cases[c][n] != NULL; n++)
			same &= n < back.n && strcmp(back.v[n], cases[c][n]) == 0;
		ok(same && back.n == n, "command line %zu round-trips: %s", c, line);
		strlist_free(&back);
		free(line);
	}
	{
		char *argv[] = { "p", "a b", "c\"d", NULL };
		char *line = wincmdline_join(argv);

		ok(strcmp(line, "p \"a b\" \"c\\\"d\"") == 0, "quoting: %s", line);
		free(line);
	}
}

static void
test_install(void)
{
	struct install_opts o = { .user = "srt-sandbox",
		.sublayer = SW_DEFAULT_SUBLAYER,
		.port_lo = 61000,
		.port_hi = 61009 };
	struct wa_filter f[8];
	size_t n = install_filters(&o, "S-1-5-21-9", f, 8);
	char *j;
	struct json_value *v;
	char err[100];

	ok(n == 4 && f[0].permit && f[0].loopback && f[0].port_lo == 61000 &&
		f[0].port_hi == 61009 && !f[1].permit && !f[1].loopback && f[1].port_lo == 0 &&
		f[0].weight > f[1].weight && f[2].v6 && f[3].v6 && !f[0].v6,
	    "filters: permit loopback to the proxy ports above a block of everything, v4 "
	    "and v6");
	for (size_t i = 0; i < n; i++)
		ok(strcmp(f[i].user_sid, "S-1-5-21-9") == 0, "filter %zu keyed on the account",
		    i);
	o.allow_loopback = 1;
	n = install_filters(&o, "S-1-5-21-9", f, 8);
	ok(n == 6 && f[1].permit && f[1].loopback && f[1].port_lo == SW_PROBE_PORT + 1 &&
		f[1].port_hi == 65535,
	    "--allow-loopback: every loopback port but the probe port");
	o.allow_loopback = 0;
	j = install_dry_run_json(&o);
	v = json_tree_parse(j, strlen(j), err, sizeof(err));
	ok(v != NULL && json_tree_get(v, "filters") != NULL &&
		json_tree_get(v, "account") != NULL && json_tree_get(v, "group") != NULL,
	    "the dry run is one JSON object");
	ok(strstr(j, "\"remote_ports\":[61000,61009]") != NULL &&
		strstr(j, "\"name\":\"sandbox-runtime-users\"") != NULL,
	    "with ports and group");
	json_tree_free(v);
	free(j);
}

static void
test_paths_and_opts(void)
{
	char *c;
	const char *pid = NULL;
	int flag = 0, lo, hi;
	struct strlist list = { 0 }, rest = { 0 };
	char *argv[] = { "--holder-pid", "7", "--json", "--env=A=1", "--env", "B=2", "--",
		"cmd", "--json", NULL };
	const struct opt o[] = {
		{ "--holder-pid", OT_STR, &pid },
		{ "--json", OT_FLAG, &flag },
		{ "--env", OT_LIST, &list },
		{ NULL, OT_FLAG, NULL },
	};

	c = sw_path_clean("//a///b/");
	ok(c != NULL && strcmp(c, "/a/b") == 0, "clean: separators collapsed");
	free(c);
	ok(sw_path_clean("/a/./b") == NULL && sw_path_clean("/a/../b") == NULL &&
		sw_path_clean("a/b") == NULL,
	    "clean: . .. and relative refused");
	c = sw_path_parent("/a/b");
	ok(c != NULL && strcmp(c, "/a") == 0 && sw_path_parent("/") == NULL,
	    "parent, none for the root");
	free(c);
	c = sw_path_parent("/a");
	ok(c != NULL && strcmp(c, "/") == 0, "the parent of /a is /");
	free(c);
	ok(sw_path_is_under("/a/b", "/a") && sw_path_is_under("/a", "/a") &&
		!sw_path_is_under("/ab", "/a") && sw_path_is_under("/x", "/"),
	    "containment by component");
	ok(opts_parse("t", 9, argv, o, &rest, 0) == 0 && pid != NULL && strcmp(pid, "7") == 0 &&
		flag && list.n == 2 && strcmp(list.v[0], "A=1") == 0 && rest.n == 2 &&
		strcmp(rest.v[1], "--json") == 0,
	    "options: values, flags, lists, -- ends them");
	strlist_free(&list);
	strlist_free(&rest);
	{
		char *bad[] = { "--nope", NULL };
		int r;

		quiet();
		r = opts_parse("t", 1, bad, o, &rest, 0);
		loud();
		ok(r == -1, "an unknown option is a usage error");
	}
	ok(parse_port_range("60080-60089", &lo, &hi) == 0 && lo == 60080 && hi == 60089 &&
		parse_port_range("1-65", &lo, &hi) == 0 &&
		parse_port_range("1-66", &lo, &hi) != 0 &&
		parse_port_range("0-5", &lo, &hi) != 0 &&
		parse_port_range("9-8", &lo, &hi) != 0 &&
		parse_port_range("65535-65536", &lo, &hi) != 0,
	    "port ranges as settings allow");
}

int
main(void)
{
	char tmpl[] = "/tmp/srt-win-test.XXXXXX", *r;

	if (mkdtemp(tmpl) == NULL || (r = realpath(tmpl, NULL)) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(root, sizeof(root), "%s", r);
	free(r);
	snprintf(fake, sizeof(fake), "%s/fake", root);
	setenv("SRT_WIN_FAKE_DIR", fake, 1);
	mkdir(at("proj"), 0755);
	mkdir(at("proj/.git"), 0755);
	mkdir(at("proj/.git/hooks"), 0755);
	mkdir(at("home"), 0755);
	mkdir(at("home/.ssh"), 0755);
	mkdir(at("home/tools"), 0755);
	fclose(fopen(at("proj/.env"), "w"));
	test_rights();
	test_plan_parse();
	test_grant_revoke();
	test_two_holders();
	test_delete_aces();
	test_recover();
	test_failures();
	test_placeholders();
	test_profile_expansion();
	test_state_format();
	test_env();
	test_cmdline();
	test_install();
	test_paths_and_opts();
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
