/*
 * The managed policy on Windows: the trust decision and the walk (managed_acl.h), pure C
 * so that every build has it and the unit tests run it with a fake.
 *
 * Which rights are refused to anyone but SYSTEM, Administrators and TrustedInstaller:
 *  - on the file, every right that changes its bytes, its streams or what it is:
 *    FILE_WRITE_DATA, FILE_APPEND_DATA, FILE_WRITE_EA, DELETE (then a new file in its
 *    place), WRITE_DAC and WRITE_OWNER (then any of those), GENERIC_WRITE, GENERIC_ALL,
 *    and FILE_WRITE_ATTRIBUTES too: it cannot change the contents, but it changes what
 *    Windows reports of the file (read-only, hidden, times) and nobody else has a reason
 *    to hold it, so it is refused rather than argued about;
 *  - on each directory, the rights that replace an entry or re-permission the directory:
 *    FILE_DELETE_CHILD (remove an entry, then create another), DELETE (rename the
 *    directory away, then create another), WRITE_DAC, WRITE_OWNER, GENERIC_ALL. The
 *    rights to add entries (FILE_ADD_FILE, FILE_ADD_SUBDIRECTORY; GENERIC_WRITE, which
 *    maps to them, with FILE_WRITE_EA and FILE_WRITE_ATTRIBUTES) are not refused: adding
 *    an entry does not replace one that exists, and what a user adds is the user's, which
 *    the owner check refuses where srt would read it. Windows gives Users those rights on
 *    C:\ and C:\ProgramData, and on a directory an administrator makes there.
 * Unlike a POSIX directory's write bit, which both adds and removes, Windows separates
 * the two; so, as on Linux, a missing name under trusted directories is no managed layer:
 * nobody else can have removed it. A user who creates %ProgramData%\srt first owns it,
 * and srt then refuses to run until it is removed (srt-settings(5)).
 *
 * An access-denied entry is not credited (it may not come first); an allowed entry of
 * another kind (object, callback, compound) counts as an allowed one, and one whose SID
 * could not be read counts as someone else's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "managed_acl.h"
#include "settings.h"

#define SID_SYSTEM "S-1-5-18"
#define SID_ADMINISTRATORS "S-1-5-32-544"
#define SID_TRUSTEDINSTALLER "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"

static const struct {
	const char *sid, *name;
} sid_names[] = {
	{ SID_SYSTEM, "SYSTEM" },
	{ SID_ADMINISTRATORS, "Administrators" },
	{ SID_TRUSTEDINSTALLER, "TrustedInstaller" },
	{ "S-1-1-0", "Everyone" },
	{ "S-1-5-11", "Authenticated Users" },
	{ "S-1-5-32-545", "Users" },
	{ "S-1-5-32-546", "Guests" },
	{ "S-1-3-0", "CREATOR OWNER" },
	{ "S-1-3-4", "OWNER RIGHTS" },
};

static const struct {
	uint32_t bit;
	const char *file, *dir;
} right_names[] = {
	{ MACL_WRITE_DATA, "FILE_WRITE_DATA", "FILE_ADD_FILE" },
	{ MACL_APPEND_DATA, "FILE_APPEND_DATA", "FILE_ADD_SUBDIRECTORY" },
	{ MACL_WRITE_EA, "FILE_WRITE_EA", "FILE_WRITE_EA" },
	{ MACL_DELETE_CHILD, "FILE_DELETE_CHILD", "FILE_DELETE_CHILD" },
	{ MACL_WRITE_ATTRIBUTES, "FILE_WRITE_ATTRIBUTES", "FILE_WRITE_ATTRIBUTES" },
	{ MACL_DELETE, "DELETE", "DELETE" },
	{ MACL_WRITE_DAC, "WRITE_DAC", "WRITE_DAC" },
	{ MACL_WRITE_OWNER, "WRITE_OWNER", "WRITE_OWNER" },
	{ MACL_GENERIC_ALL, "GENERIC_ALL", "GENERIC_ALL" },
	{ MACL_GENERIC_WRITE, "GENERIC_WRITE", "GENERIC_WRITE" },
};

void
macl_object_free(struct macl_object *o)
{
	for (size_t i = 0; i < o->nace; i++)
		free(o->ace[i].sid);
	free(o->ace);
	free(o->owner);
	memset(o, 0, sizeof(*o));
}

static bool
trusted_sid(const char *sid)
{
	return sid != NULL &&
	    (strcmp(sid, SID_SYSTEM) == 0 || strcmp(sid, SID_ADMINISTRATORS) == 0 ||
		strcmp(sid, SID_TRUSTEDINSTALLER) == 0);
}

/* "Users (S-1-5-32-545)", or the SID alone. */
static void
sid_show(const char *sid, char *buf, size_t len)
{
	if (sid == NULL || *sid == '\0') {
		snprintf(buf, len, "an unreadable SID");
		return;
	}
	for (size_t i = 0; i < sizeof(sid_names) / sizeof(sid_names[0]); i++)
		if (strcmp(sid, sid_names[i].sid) == 0) {
			snprintf(buf, len, "%s (%s)", sid_names[i].name, sid);
			return;
		}
	snprintf(buf, len, "%s", sid);
}

static bool
allows(uint8_t type)
{
	return type == MACL_ALLOWED || type == MACL_ALLOWED_COMPOUND ||
	    type == MACL_ALLOWED_OBJECT || type == MACL_ALLOWED_CALLBACK ||
	    type == MACL_ALLOWED_CB_OBJECT;
}

const char *
managed_acl_untrusted(const struct macl_object *o, bool file, char *buf, size_t len)
{
	uint32_t refused = file ? MACL_FILE_REFUSED : MACL_DIR_REFUSED, bad;
	char who[96];
	size_t n;

	if (o->reparse) {
		snprintf(
		    buf, len, "a reparse point (a junction, symbolic link or mount point)");
		return buf;
	}
	if (!trusted_sid(o->owner)) {
		sid_show(o->owner, who, sizeof(who));
		snprintf(buf, len,
		    "owned by %s, not by SYSTEM, Administrators or "
		    "TrustedInstaller",
		    who);
		return buf;
	}
	if (o->dacl_null) {
		snprintf(buf, len, "without a DACL (a NULL DACL gives everyone every right)");
		return buf;
	}
	for (size_t i = 0; i < o->nace; i++) {
		const struct macl_ace *a = &o->ace[i];

		if (!allows(a->type) || (a->flags & MACL_INHERIT_ONLY) || trusted_sid(a->sid) ||
		    (bad = a->mask & refused) == 0)
			continue;
		sid_show(a->sid, who, sizeof(who));
		n = (size_t)snprintf(buf, len, "changeable by %s (its DACL allows it", who);
		for (size_t k = 0; k < sizeof(right_names) / sizeof(right_names[0]); k++)
			if ((bad & right_names[k].bit) && n < len)
				n += (size_t)snprintf(buf + n, len - n, " %s",
				    file ? right_names[k].file : right_names[k].dir);
		if (n < len)
			snprintf(buf + n, len - n, ")");
		return buf;
	}
	return NULL;
}

/* The names from the drive root down to the file: "C:\", "C:\ProgramData", ... */
static int
walk_split(const char *path, struct strlist *out, struct diags *errs)
{
	const char *p, *e;

	if (!((path[0] >= 'A' && path[0] <= 'Z') || (path[0] >= 'a' && path[0] <= 'z')) ||
	    path[1] != ':' || path[2] != '\\') {
		diags_add(errs,
		    "%s: not on a local drive (X:\\...); srt reads the managed "
		    "policy from nowhere else",
		    path);
		return -1;
	}
	strlist_push_owned(out, xstrndup(path, 3));
	for (p = path + 3; *p != '\0'; p = *e ? e + 1 : e) {
		e = strchr(p, '\\');
		if (e == NULL)
			e = p + strlen(p);
		if (e == p || (e - p == 1 && p[0] == '.') ||
		    (e - p == 2 && p[0] == '.' && p[1] == '.')) {
			diags_add(errs,
			    "%s: an empty, . or .. name; the managed policy's path "
			    "must be plain",
			    path);
			return -1;
		}
		strlist_push_owned(out, xstrndup(path, (size_t)(e - path)));
	}
	return 0;
}

/* 1: the file is there and trusted; 0: a name on the way is missing; -1: refused. */
static int
walk(const struct managed_winsys *sys, const char *path, struct diags *errs)
{
	struct strlist way = { 0 };
	struct macl_object o;
	char *why = NULL, reason[256];
	int rc = -1;

	if (walk_split(path, &way, errs) == -1)
		goto out;
	for (size_t i = 0; i < way.n; i++) {
		bool file = i + 1 == way.n;

		memset(&o, 0, sizeof(o));
		if (sys->look(sys->ctx, way.v[i], &o, &why) == -1) {
			diags_add(errs, "%s: %s: %s; the managed policy cannot be read", path,
			    way.v[i], why != NULL ? why : "cannot be looked at");
			goto out;
		}
		if (o.kind == MACL_MISSING) {
			log_debug(
			    "managed policy: %s does not exist: no managed layer", way.v[i]);
			macl_object_free(&o);
			rc = 0;
			goto out;
		}
		if (managed_acl_untrusted(&o, file, reason, sizeof(reason)) != NULL)
			diags_add(errs,
			    "%s: the managed policy cannot be trusted: the %s %s is "
			    "%s; it and every directory above it must be owned by SYSTEM, "
			    "Administrators or TrustedInstaller and changeable by nobody else",
			    path, file ? "file" : "directory", way.v[i], reason);
		else if (!file && o.kind != MACL_DIR)
			diags_add(errs,
			    "%s: %s is not a directory; the managed policy cannot be "
			    "trusted",
			    path, way.v[i]);
		else if (file && o.kind != MACL_FILE)
			diags_add(errs, "%s: %s is not a regular file", path, way.v[i]);
		else {
			macl_object_free(&o);
			continue;
		}
		macl_object_free(&o);
		goto out;
	}
	rc = 1;
out:
	free(why);
	strlist_free(&way);
	return rc;
}

int
managed_acl_load(const struct managed_winsys *sys, struct managed *m, struct diags *errs,
    struct diags *warns)
{
	struct settings s;
	char *dir = NULL, *path = NULL, *why = NULL;
	int rc = -1, found;

	memset(m, 0, sizeof(*m));
	if (sys->program_data(sys->ctx, &dir, &why) == -1) {
		diags_add(errs,
		    "%s: where ProgramData is cannot be told (%s); srt does not "
		    "guess where the managed policy is",
		    MANAGED_WIN_PATH, why != NULL ? why : "no reason given");
		goto out;
	}
	path = xasprintf("%s%ssrt\\managed-settings.json", dir,
	    *dir && dir[strlen(dir) - 1] == '\\' ? "" : "\\");
	if ((found = walk(sys, path, errs)) <= 0) {
		rc = found;
		goto out;
	}
	if (sys->read(sys->ctx, path, SETTINGS_MAX_BYTES, &m->text, &m->len, &why) == -1) {
		diags_add(errs, "%s: cannot be read: %s", path, why != NULL ? why : "failed");
		goto out;
	}
	/* Checked now, so that a broken managed file stops every program at its start. */
	if (settings_parse_managed(m->text, m->len, path, &s, errs, warns) != 0) {
		managed_free(m);
		goto out;
	}
	settings_free(&s);
	m->path = path;
	path = NULL;
	m->present = true;
	log_debug("managed policy: %s", m->path);
	rc = 0;
out:
	sys->done(sys->ctx);
	free(why);
	free(path);
	free(dir);
	return rc;
}
