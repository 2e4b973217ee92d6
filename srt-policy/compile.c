/* check, compile and dump: settings in, policy image out, and back; dump --layers says
 * which file each rule came from. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "log.h"
#include "managed.h"
#include "srt-policy.h"
#include "util.h"

int
cmd_check(const struct opts *o)
{
	struct policy *p;

	if (load_policy(o, &p, NULL, NULL) != 0)
		return EXIT_ERROR;
	policy_free(p);
	return 0;
}

int
cmd_compile(const struct opts *o)
{
	struct policy *p;
	struct settings s = { 0 };
	const uint8_t *buf;
	size_t len;
	char err[512];
	int rc = EXIT_ERROR;

	/* The image is compiled and read back by the loader: never leave one behind that the
	 * helpers would refuse. */
	if (load_policy(o, &p, &s, NULL) != 0)
		return EXIT_ERROR;
	/* policy.bin has no place for masked credentials: a policy that dropped them would
	 * hand the command the real values. */
	if (s.cred.nmask > 0) {
		log_warnx("%s: credentials with mode \"mask\" cannot be compiled into a "
			  "policy yet; run the command with -s %s instead",
		    o->settings, o->settings);
		goto out;
	}
	buf = policy_bytes(p, &len);
	if (policy_write_file(o->output, buf, len, err, sizeof(err)) != 0) {
		log_warnx("%s", err);
		goto out;
	}
	log_debug("wrote %zu bytes to %s", len, o->output);
	rc = 0;
out:
	policy_free(p);
	settings_free(&s);
	return rc;
}

/* ---- dump --layers ------------------------------------------------------------------- */

struct layers_out {
	const struct settings *s;
	const char *user; /* the file of -p or -s */
	cJSON *defaults;  /* the canonical JSON of the built-in defaults */
};

/* A file name as one field of a line: no tab, newline or other control reaches it. */
static void
put_field(const char *t)
{
	for (; *t != '\0'; t++)
		putchar((unsigned char)*t < 0x20 || *t == 0x7f ? '?' : *t);
}

static void
layer_line(struct layers_out *lo, bool managed, const char *path, const cJSON *value)
{
	char *v = cJSON_PrintUnformatted(value);

	if (v == NULL)
		fatalx("out of memory");
	put_field(managed ? managed_path : lo->user);
	printf("\t%s\t%s\n", path, v);
	free(v);
}

static int
list_of(const char *path)
{
	for (int l = 0; l < SL_COUNT; l++)
		if (strcmp(settings_list_path((enum settings_list)l), path) == 0)
			return l;
	return -1;
}

/* Each member of obj, at prefix: a list entry by entry, an option when it is not its
 * default, an object member by member. */
static void
layers_walk(struct layers_out *lo, const cJSON *obj, const char *prefix)
{
	const cJSON *m, *e;
	char *path;
	size_t i;
	int l;

	for (m = obj->child; m != NULL; m = m->next) {
		path = *prefix ? xasprintf("%s.%s", prefix, m->string) : xstrdup(m->string);
		if ((l = list_of(path)) >= 0) {
			i = 0;
			for (e = m->child; e != NULL; e = e->next, i++) {
				cJSON *one = NULL;

				if (cJSON_IsObject(m)) {
					/* One member of a map: written as the object it would be. */
					if ((one = cJSON_CreateObject()) == NULL ||
					    !cJSON_AddItemToObject(
						one, e->string, cJSON_Duplicate(e, 1)))
						fatalx("out of memory");
				}
				layer_line(lo, i < lo->s->layers.managed[l], path,
				    one != NULL ? one : e);
				cJSON_Delete(one);
			}
		} else if (cJSON_IsObject(m) && strcmp(path, "windows") != 0)
			layers_walk(lo, m, path);
		else if (!cJSON_Compare(m, managed_json_at(lo->defaults, path), 1))
			layer_line(lo, strlist_contains(&lo->s->layers.options, path), path, m);
		free(path);
	}
}

/*
 * One line per rule and per option that is not at its default, in dump's order:
 * FILE<TAB>KEY<TAB>VALUE, the value as JSON (a list's entry, or a map's member as a
 * one-member object). The managed file's own fields come first.
 */
static int
dump_layers(const struct settings *s, const char *user)
{
	static const struct {
		unsigned bit;
		const char *name;
	} own[] = {
		{ SETTINGS_LAYER_DOMAINS_ONLY, "allowManagedDomainsOnly" },
		{ SETTINGS_LAYER_READ_PATHS_ONLY, "allowManagedReadPathsOnly" },
		{ SETTINGS_LAYER_USER_WEAKER, "allowUserWeakerOptions" },
	};
	struct layers_out lo = { s, user != NULL ? user : "built-in policy", NULL };
	struct settings d;
	char *text;
	cJSON *root, *t = cJSON_CreateTrue();

	settings_init_default(&d);
	text = settings_to_json(&d);
	lo.defaults = cJSON_Parse(text);
	free(text);
	text = settings_to_json(s);
	root = cJSON_Parse(text);
	free(text);
	if (lo.defaults == NULL || root == NULL || t == NULL)
		fatalx("out of memory");
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (s->layers.flags & own[i].bit)
			layer_line(&lo, true, own[i].name, t);
	layers_walk(&lo, root, "");
	cJSON_Delete(t);
	cJSON_Delete(root);
	cJSON_Delete(lo.defaults);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		log_warn("stdout");
		return EXIT_ERROR;
	}
	return 0;
}

int
cmd_dump(const struct opts *o)
{
	struct settings s;
	struct policy *p;
	char *json, *path = NULL;
	int rc = 0;

	if (load_policy(o, &p, &s, &path) != 0)
		return EXIT_ERROR;
	policy_free(p);
	if (o->layers) {
		rc = dump_layers(&s, path);
		goto out;
	}
	json = settings_to_json(&s);
	if (json == NULL) {
		log_warnx("%s: cannot print the settings", path != NULL ? path : "policy");
		rc = EXIT_ERROR;
	} else if (fputs(json, stdout) == EOF || fflush(stdout) == EOF) {
		log_warn("stdout");
		rc = EXIT_ERROR;
	}
	free(json);
out:
	free(path);
	settings_free(&s);
	return rc;
}
