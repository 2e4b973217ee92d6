/*
 * The managed policy on Windows (managed_acl.h): the trust decision and the walk, run on
 * Linux against a fake Windows that keeps one descriptor per path. The default tree is
 * what a stock Windows has (C:\ owned by TrustedInstaller, Authenticated Users may add
 * folders to it; C:\ProgramData owned by SYSTEM, Users may add files and folders to it
 * and to what is made under it) with the directory and file an administrator makes.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "managed.h"
#include "managed_acl.h"
#include "tap.h"
#include "util.h"

#define SY "S-1-5-18"
#define BA "S-1-5-32-544"
#define TI "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"
#define BU "S-1-5-32-545"
#define AU "S-1-5-11"
#define WD "S-1-1-0"
#define CO "S-1-3-0"
#define ALICE "S-1-5-21-1-2-3-1001"

#define FA 0x001f01ffu /* FILE_ALL_ACCESS */
#define RX 0x001200a9u /* read and execute */
#define CI 0x02
#define OI 0x01
#define IO MACL_INHERIT_ONLY
#define INH 0x10 /* INHERITED_ACE: applies, as an explicit one does */

#define FILE_PATH "C:\\ProgramData\\srt\\managed-settings.json"
#define MAX_ACE 8

struct fake_ace {
	uint8_t type, flags;
	uint32_t mask;
	const char *sid;
};

struct fake_obj {
	const char *path;
	enum macl_kind kind;
	bool reparse, dacl_null;
	const char *owner;
	struct fake_ace ace[MAX_ACE];
};

struct fake {
	struct fake_obj obj[8];
	size_t nobj;
	const char *program_data; /* NULL: the known folder cannot be told */
	const char *text;
	int program_data_calls, done_calls;
	struct strlist looked;
};

static int
f_program_data(void *ctx, char **dir, char **why)
{
	struct fake *f = ctx;

	f->program_data_calls++;
	if (f->program_data == NULL) {
		*why = xstrdup("Element not found (2147943568)");
		return -1;
	}
	*dir = xstrdup(f->program_data);
	return 0;
}

static int
f_look(void *ctx, const char *path, struct macl_object *o, char **why)
{
	struct fake *f = ctx;

	(void)why;
	strlist_push(&f->looked, path);
	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < f->nobj; i++) {
		const struct fake_obj *x = &f->obj[i];

		if (strcmp(x->path, path) != 0)
			continue;
		o->kind = x->kind;
		o->reparse = x->reparse;
		o->dacl_null = x->dacl_null;
		o->owner = xstrdup(x->owner);
		for (size_t k = 0; k < MAX_ACE && x->ace[k].sid != NULL; k++) {
			o->ace = xreallocarray(o->ace, o->nace + 1, sizeof(*o->ace));
			o->ace[o->nace].type = x->ace[k].type;
			o->ace[o->nace].flags = x->ace[k].flags;
			o->ace[o->nace].mask = x->ace[k].mask;
			o->ace[o->nace++].sid = xstrdup(x->ace[k].sid);
		}
		return 0;
	}
	o->kind = MACL_MISSING;
	return 0;
}

static int
f_read(void *ctx, const char *path, size_t max, char **text, size_t *len, char **why)
{
	struct fake *f = ctx;

	(void)path;
	(void)max;
	(void)why;
	*text = xstrdup(f->text);
	*len = strlen(f->text);
	return 0;
}

static void
f_done(void *ctx)
{
	((struct fake *)ctx)->done_calls++;
}

/* A stock Windows with an administrator's %ProgramData%\srt\managed-settings.json. */
static void
fake_stock(struct fake *f)
{
	static const struct fake_obj stock[] = {
		{ "C:\\", MACL_DIR, false, false, TI,
		    { { MACL_ALLOWED, OI | CI, FA, SY }, { MACL_ALLOWED, OI | CI, FA, BA },
			{ MACL_ALLOWED, OI | CI, RX, BU },
			{ MACL_ALLOWED, OI | CI | IO, 0x10000000u, CO },
			{ MACL_ALLOWED, OI | CI | IO, 0x001301bfu, AU },
			{ MACL_ALLOWED, 0, MACL_APPEND_DATA, AU } } },
		{ "C:\\ProgramData", MACL_DIR, false, false, SY,
		    { { MACL_ALLOWED, OI | CI, FA, SY }, { MACL_ALLOWED, OI | CI, FA, BA },
			{ MACL_ALLOWED, OI | CI | IO, 0x10000000u, CO },
			{ MACL_ALLOWED, OI | CI, RX, BU }, { MACL_ALLOWED, CI, 0x116u, BU } } },
		{ "C:\\ProgramData\\srt", MACL_DIR, false, false, BA,
		    { { MACL_ALLOWED, INH | OI | CI, FA, SY },
			{ MACL_ALLOWED, INH | OI | CI, FA, BA },
			{ MACL_ALLOWED, INH | OI | CI | IO, 0x10000000u, CO },
			{ MACL_ALLOWED, INH | OI | CI, RX, BU },
			{ MACL_ALLOWED, INH | CI, 0x116u, BU } } },
		{ FILE_PATH, MACL_FILE, false, false, BA,
		    { { MACL_ALLOWED, INH, FA, SY }, { MACL_ALLOWED, INH, FA, BA },
			{ MACL_ALLOWED, INH, RX, BU } } },
	};

	memset(f, 0, sizeof(*f));
	memcpy(f->obj, stock, sizeof(stock));
	f->nobj = sizeof(stock) / sizeof(stock[0]);
	f->program_data = "C:\\ProgramData";
	f->text = "{\"allowManagedDomainsOnly\":true,\"network\":{\"allowedDomains\":"
		  "[\"example.com\"],\"deniedDomains\":[]},\"filesystem\":{\"denyRead\":[],"
		  "\"allowWrite\":[],\"denyWrite\":[]}}";
}

static struct fake_obj *
obj(struct fake *f, const char *path)
{
	for (size_t i = 0; i < f->nobj; i++)
		if (strcmp(f->obj[i].path, path) == 0)
			return &f->obj[i];
	abort();
}

/* Append an entry to path's DACL. */
static void
add_ace(struct fake *f, const char *path, uint8_t type, uint8_t flags, uint32_t mask,
    const char *sid)
{
	struct fake_obj *o = obj(f, path);
	size_t k = 0;

	while (o->ace[k].sid != NULL)
		k++;
	o->ace[k] = (struct fake_ace){ type, flags, mask, sid };
}

/* Load through f: the rc, with errs holding the reason. */
static int
load(struct fake *f, struct managed *m, struct diags *errs)
{
	struct managed_winsys sys = {
		.program_data = f_program_data,
		.look = f_look,
		.read = f_read,
		.done = f_done,
		.ctx = f,
	};
	int rc;

	rc = managed_acl_load(&sys, m, errs, NULL);
	return rc;
}

static const char *
first(const struct diags *d)
{
	return d->msgs.n > 0 ? d->msgs.v[0] : "(none)";
}

/* Refused, with a message naming the file, what on the way, and the reason. */
static void
refused(struct fake *f, const char *where, const char *reason, const char *what)
{
	struct diags errs = { 0 };
	struct managed m;
	int rc = load(f, &m, &errs);

	ok(rc == -1 && !m.present && errs.msgs.n == 1 &&
		strstr(first(&errs), FILE_PATH ": the managed policy cannot be trusted: ") ==
		    first(&errs) &&
		strstr(first(&errs), where) != NULL && strstr(first(&errs), reason) != NULL &&
		f->done_calls == 1,
	    "%s: refused: %s", what, first(&errs));
	diags_free(&errs);
	managed_free(&m);
	strlist_free(&f->looked);
}

static void
test_accepted(void)
{
	struct diags errs = { 0 };
	struct fake f;
	struct managed m;
	int rc;

	fake_stock(&f);
	rc = load(&f, &m, &errs);
	ok(rc == 0 && m.present && errs.msgs.n == 0 && m.path != NULL &&
		strcmp(m.path, FILE_PATH) == 0 && strstr(m.text, "example.com") != NULL,
	    "SYSTEM, TrustedInstaller and Administrators own the way, Users read and may "
	    "add entries to the directories: read (%s)",
	    first(&errs));
	ok(f.looked.n == 4 && strcmp(f.looked.v[0], "C:\\") == 0 &&
		strcmp(f.looked.v[3], FILE_PATH) == 0 && f.done_calls == 1,
	    "every name from the drive root down is looked at, and the handles let go");
	managed_free(&m);
	strlist_free(&f.looked);

	fake_stock(&f);
	obj(&f, FILE_PATH)->owner = SY;
	add_ace(&f, FILE_PATH, MACL_ALLOWED, 0, MACL_GENERIC_ALL, TI);
	rc = load(&f, &m, &errs);
	ok(rc == 0 && m.present,
	    "a file owned by SYSTEM that TrustedInstaller may change: "
	    "read (%s)",
	    first(&errs));
	managed_free(&m);
	strlist_free(&f.looked);

	/* An inherit-only entry does not apply to the object itself. */
	fake_stock(&f);
	add_ace(&f, "C:\\ProgramData\\srt", MACL_ALLOWED, OI | IO, FA, BU);
	add_ace(&f, FILE_PATH, MACL_ALLOWED, OI | CI | IO, MACL_GENERIC_ALL, WD);
	rc = load(&f, &m, &errs);
	ok(rc == 0 && m.present,
	    "inherit-only entries giving Users and Everyone every "
	    "right are ignored (%s)",
	    first(&errs));
	managed_free(&m);
	strlist_free(&f.looked);

	/* A deny entry is not credited, and is no reason to refuse either. */
	fake_stock(&f);
	add_ace(&f, FILE_PATH, MACL_DENIED, 0, FA, BU);
	rc = load(&f, &m, &errs);
	ok(rc == 0 && m.present, "a deny entry alone changes nothing (%s)", first(&errs));
	managed_free(&m);
	strlist_free(&f.looked);
}

static void
test_refused(void)
{
	struct fake f;

	fake_stock(&f);
	obj(&f, FILE_PATH)->owner = ALICE;
	refused(&f, "the file " FILE_PATH,
	    "owned by " ALICE ", not by SYSTEM, "
	    "Administrators or TrustedInstaller",
	    "a file a user owns");

	fake_stock(&f);
	add_ace(&f, FILE_PATH, MACL_ALLOWED, 0, RX | MACL_WRITE_DATA | MACL_APPEND_DATA, BU);
	refused(&f, "the file " FILE_PATH,
	    "changeable by Users (S-1-5-32-545) (its DACL "
	    "allows it FILE_WRITE_DATA FILE_APPEND_DATA)",
	    "Users may write the file");

	fake_stock(&f);
	add_ace(&f, FILE_PATH, MACL_ALLOWED, INH, MACL_WRITE_ATTRIBUTES, AU);
	refused(&f, "the file " FILE_PATH, "FILE_WRITE_ATTRIBUTES",
	    "an inherited entry giving Authenticated Users FILE_WRITE_ATTRIBUTES on the file");

	fake_stock(&f);
	add_ace(&f, FILE_PATH, MACL_ALLOWED, 0, MACL_DELETE, ALICE);
	refused(&f, "the file", "changeable by " ALICE " (its DACL allows it DELETE)",
	    "a user may delete the file");

	fake_stock(&f);
	add_ace(&f, "C:\\ProgramData\\srt", MACL_ALLOWED, CI, MACL_DELETE_CHILD, BU);
	refused(&f, "the directory C:\\ProgramData\\srt is",
	    "changeable by Users "
	    "(S-1-5-32-545) (its DACL allows it FILE_DELETE_CHILD)",
	    "Users FILE_DELETE_CHILD on the directory");

	fake_stock(&f);
	add_ace(&f, "C:\\ProgramData\\srt", MACL_ALLOWED, 0, MACL_WRITE_DAC, BU);
	refused(&f, "the directory C:\\ProgramData\\srt is", "WRITE_DAC",
	    "Users WRITE_DAC on the directory");

	fake_stock(&f);
	obj(&f, FILE_PATH)->dacl_null = true;
	memset(obj(&f, FILE_PATH)->ace, 0, sizeof(obj(&f, FILE_PATH)->ace));
	refused(&f, "the file", "without a DACL (a NULL DACL gives everyone every right)",
	    "a NULL DACL on the file");

	fake_stock(&f);
	obj(&f, "C:\\ProgramData")->dacl_null = true;
	refused(&f, "the directory C:\\ProgramData is", "without a DACL",
	    "a NULL DACL on ProgramData");

	fake_stock(&f);
	add_ace(&f, FILE_PATH, MACL_ALLOWED, 0, MACL_GENERIC_ALL, WD);
	refused(&f, "the file",
	    "changeable by Everyone (S-1-1-0) (its DACL allows it "
	    "GENERIC_ALL)",
	    "Everyone GENERIC_ALL on the file");

	/* Another kind of allowed entry counts; one whose SID could not be read too. */
	fake_stock(&f);
	add_ace(&f, FILE_PATH, MACL_ALLOWED_OBJECT, 0, MACL_GENERIC_WRITE, "");
	refused(&f, "the file",
	    "changeable by an unreadable SID (its DACL allows it "
	    "GENERIC_WRITE)",
	    "an object entry whose SID is not told");

	fake_stock(&f);
	obj(&f, "C:\\ProgramData\\srt")->reparse = true;
	refused(&f, "the directory C:\\ProgramData\\srt is", "a reparse point",
	    "a junction for the directory");

	fake_stock(&f);
	obj(&f, FILE_PATH)->reparse = true;
	refused(&f, "the file", "a reparse point", "a symbolic link for the file");

	/* A user who made %ProgramData%\srt before the administrator owns it. */
	fake_stock(&f);
	obj(&f, "C:\\ProgramData\\srt")->owner = ALICE;
	refused(&f, "the directory C:\\ProgramData\\srt is", "owned by " ALICE,
	    "a directory a user made");

	fake_stock(&f);
	obj(&f, "C:\\")->owner = ALICE;
	refused(&f, "the directory C:\\ is", "owned by " ALICE, "a drive root a user owns");
}

static void
test_absent(void)
{
	struct diags errs = { 0 };
	struct fake f;
	struct managed m;
	int rc;

	fake_stock(&f);
	f.nobj = 3;
	rc = load(&f, &m, &errs);
	ok(rc == 0 && !m.present && errs.msgs.n == 0 && f.done_calls == 1,
	    "no file in a trusted directory: no managed layer (%s)", first(&errs));
	strlist_free(&f.looked);

	fake_stock(&f);
	f.nobj = 2;
	rc = load(&f, &m, &errs);
	ok(rc == 0 && !m.present && errs.msgs.n == 0 && f.looked.n == 3,
	    "no %%ProgramData%%\\srt: no managed layer, nothing below it looked at");
	strlist_free(&f.looked);

	/* Absent under a directory others may empty: its absence is not trusted. */
	fake_stock(&f);
	f.nobj = 3;
	add_ace(&f, "C:\\ProgramData\\srt", MACL_ALLOWED, 0, MACL_DELETE_CHILD, BU);
	refused(&f, "the directory C:\\ProgramData\\srt is", "FILE_DELETE_CHILD",
	    "no file, under a directory Users may delete entries of");

	fake_stock(&f);
	obj(&f, FILE_PATH)->kind = MACL_DIR;
	rc = load(&f, &m, &errs);
	ok(rc == -1 && strstr(first(&errs), "is not a regular file") != NULL,
	    "a directory where the file should be: %s", first(&errs));
	diags_free(&errs);
	strlist_free(&f.looked);
}

static void
test_location(void)
{
	struct diags errs = { 0 };
	struct fake f;
	struct managed m;
	int rc;

	/* What a user's environment says of ProgramData is not asked. */
	setenv("ProgramData", "D:\\mine", 1);
	setenv("ALLUSERSPROFILE", "D:\\mine", 1);
	fake_stock(&f);
	rc = load(&f, &m, &errs);
	ok(rc == 0 && m.present && f.program_data_calls == 1 &&
		strcmp(m.path, FILE_PATH) == 0 && !strlist_contains(&f.looked, "D:\\"),
	    "the known folder gives the location, not %%ProgramData%% in the environment");
	managed_free(&m);
	strlist_free(&f.looked);
	unsetenv("ProgramData");
	unsetenv("ALLUSERSPROFILE");

	fake_stock(&f);
	f.program_data = NULL;
	rc = load(&f, &m, &errs);
	ok(rc == -1 && !m.present &&
		strstr(first(&errs),
		    "%ProgramData%\\srt\\managed-"
		    "settings.json: where ProgramData is cannot be told (Element not found") !=
		    NULL &&
		f.looked.n == 0,
	    "no known folder: refused, nothing guessed: %s", first(&errs));
	diags_free(&errs);

	fake_stock(&f);
	f.program_data = "\\\\server\\share\\ProgramData";
	rc = load(&f, &m, &errs);
	ok(rc == -1 && strstr(first(&errs), "not on a local drive") != NULL && f.looked.n == 0,
	    "a ProgramData off a local drive: refused: %s", first(&errs));
	diags_free(&errs);

	fake_stock(&f);
	f.program_data = "C:\\ProgramData\\..\\Users\\alice";
	rc = load(&f, &m, &errs);
	ok(rc == -1 && strstr(first(&errs), "must be plain") != NULL,
	    "a ProgramData with .. in it: refused: %s", first(&errs));
	diags_free(&errs);

	/* The file's contents are checked as on Linux. */
	fake_stock(&f);
	f.text = "{\"allowUserWeakerOptions\":1}";
	rc = load(&f, &m, &errs);
	ok(rc == -1 && !m.present && strstr(first(&errs), FILE_PATH) != NULL,
	    "an invalid managed file: refused, naming it: %s", first(&errs));
	diags_free(&errs);
	strlist_free(&f.looked);
}

int
main(void)
{
	test_accepted();
	test_refused();
	test_absent();
	test_location();
	return tap_done();
}
