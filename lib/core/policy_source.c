/* One way to load a policy (policy_source.h). */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "policy_source.h"
#include "sys_file.h"

static int
source_open(const struct policy_source *src, const char *path)
{
	if (src->open_file != NULL)
		return src->open_file(src->open_arg, path);
	return open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
}

/*
 * The user's layer as settings (owned; consumed), merged with the managed layer into the
 * policy, and into *set when the caller wants the settings.
 */
static struct policy *
merge_compile(const struct managed *m, struct settings *user, const char *name,
    struct settings *set, struct diags *errs, struct diags *warns)
{
	struct settings merged;
	struct policy *p;
	char err[512];

	if (managed_apply(m, user, name, &merged, errs, warns) != 0)
		return NULL;
	if (m != NULL && m->present)
		log_debug("policy: %s merged with the managed policy %s", name, m->path);
	if ((p = policy_from_settings(&merged, err, sizeof(err))) == NULL) {
		diags_add(errs, "%s: %s", name, err);
		settings_free(&merged);
		return NULL;
	}
	if (set != NULL)
		*set = merged;
	else
		settings_free(&merged);
	return p;
}

/* A compiled policy, from a file or a descriptor. */
static struct policy *
load_compiled(const struct policy_source *src, const struct managed *m, struct settings *set,
    struct diags *errs, struct diags *warns)
{
	const char *name = src->policy_path != NULL ? src->policy_path : "policy.bin";
	struct settings user;
	struct policy *p;
	char err[512];
	int fd;

	if (src->policy_path != NULL) {
		if ((fd = source_open(src, src->policy_path)) < 0) {
			diags_add(errs, "%s: %s", src->policy_path, strerror(errno));
			return NULL;
		}
		p = policy_open_fd_as(fd, src->policy_path, err, sizeof(err));
		close(fd);
	} else
		p = policy_open_fd(src->policy_fd, err, sizeof(err));
	if (p == NULL) {
		diags_add(errs, "%s", err);
		return NULL;
	}
	/* As it is, unless there is a managed layer to merge, or one to forget. */
	if (!(m != NULL && m->present) && policy_layer_flags(p) == 0 && set == NULL)
		return p;
	if (policy_to_settings(p, &user) != 0) {
		diags_add(errs, "%s: the settings cannot be rebuilt from the policy", name);
		policy_free(p);
		return NULL;
	}
	if (!(m != NULL && m->present) && policy_layer_flags(p) == 0) {
		*set = user;
		return p;
	}
	policy_free(p);
	return merge_compile(
	    m, &user, name, set, errs, src->managed_warns != NULL ? src->managed_warns : warns);
}

/* Settings from a file, or the built-in defaults (path NULL), compiled in memory. */
static struct policy *
load_settings(const struct policy_source *src, const struct managed *m, const char *path,
    struct settings *set, struct diags *errs, struct diags *warns)
{
	struct settings user;
	int fd, rc;

	if (path == NULL && src->settings_text != NULL) {
		/* A line of --control-fd: merged with the managed layer like the file was. */
		if (settings_parse(src->settings_text, src->settings_len, src->settings_name,
			&user, errs, warns) != 0)
			return NULL;
		path = src->settings_name;
	} else if (path == NULL)
		settings_init_default(&user);
	else {
		fd = source_open(src, path);
		rc = settings_load_fd(fd, path, &user, errs, warns);
		if (fd >= 0)
			close(fd);
		if (rc != 0)
			return NULL;
	}
	return merge_compile(m, &user, path != NULL ? path : "built-in policy", set, errs,
	    src->managed_warns != NULL ? src->managed_warns : warns);
}

int
policy_source_load(const struct policy_source *src, struct policy **polp, struct settings *set,
    char **pathp, struct diags *errs, struct diags *warns)
{
	struct managed own = { .present = false };
	const struct managed *m = src->managed;
	char *path = NULL;
	struct stat st;
	size_t before = errs->msgs.n;
	int mrc = 0;

	*polp = NULL;
	if (set != NULL)
		memset(set, 0, sizeof(*set));
	if (pathp != NULL)
		*pathp = NULL;
	/* The managed layer first; when it cannot be used, the user's is still read, so that
	 * check reports the problems of both files at once. */
	if (m == NULL) {
		mrc = managed_load(&own, errs, warns);
		m = &own;
	}
	if (src->policy_path != NULL || src->policy_fd != -1) {
		if (src->policy_path != NULL) {
			path = xstrdup(src->policy_path);
			log_debug("policy: %s (compiled)", path);
		} else
			log_debug("policy: descriptor %d (compiled)", src->policy_fd);
		*polp = load_compiled(src, m, set, errs, warns);
	} else if (src->settings_path != NULL) {
		path = xstrdup(src->settings_path);
		log_debug("policy: compiled from %s", path);
		*polp = load_settings(src, m, path, set, errs, warns);
	} else if (src->settings_text != NULL) {
		log_debug("policy: compiled from %s", src->settings_name);
		*polp = load_settings(src, m, NULL, set, errs, warns);
	} else if (src->fallback == POLICY_SOURCE_REQUIRED) {
		diags_add(errs, "exactly one of -p, -s or --policy-fd is required");
	} else if ((path = settings_default_path()) == NULL) {
		if (src->fallback == POLICY_SOURCE_DEFAULT_OR_BUILTIN) {
			log_debug(
			    "policy: no home directory for ~/.srt-settings.json: built-in "
			    "defaults");
			*polp = load_settings(src, m, NULL, set, errs, warns);
		} else
			diags_add(errs,
			    "cannot tell the home directory for "
			    "~/.srt-settings.json (set HOME to an absolute path); use -s");
	} else if (src->fallback == POLICY_SOURCE_DEFAULT_OR_BUILTIN && lstat(path, &st) != 0 &&
	    errno == ENOENT) {
		log_debug("policy: %s does not exist: built-in defaults (no network, no writes "
			  "but the defaults)",
		    path);
		free(path);
		path = NULL;
		*polp = load_settings(src, m, NULL, set, errs, warns);
	} else {
		log_debug("policy: compiled from %s", path);
		*polp = load_settings(src, m, path, set, errs, warns);
	}
	if (mrc != 0 && *polp != NULL) {
		policy_free(*polp);
		*polp = NULL;
		if (set != NULL)
			settings_free(set);
	}
	managed_free(&own);
	if (*polp == NULL) {
		if (errs->msgs.n == before)
			diags_add(errs, "%s: cannot be loaded", path != NULL ? path : "policy");
		free(path);
		return -1;
	}
	if (pathp != NULL)
		*pathp = path;
	else
		free(path);
	return 0;
}
