/*
 * Windows path spellings (lib/core/path_win.c), natively: the one form they produce, what they
 * refuse and why, and the case-insensitive comparisons the Windows plan ranks by.
 */
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "tap.h"

static int
abs_is(const char *entry, const char *home, const char *cwd, const char *want)
{
	char *got = pathw_absolute(entry, home, cwd);
	int r = want == NULL ? got == NULL : got != NULL && strcmp(got, want) == 0;

	if (!r)
		printf(
		    "# %s: got %s, want %s\n", entry, got ? got : "NULL", want ? want : "NULL");
	free(got);
	return r;
}

static int
refused(const char *entry, const char *why_part)
{
	const char *why = pathw_refusal(entry);
	char *a = pathw_absolute(entry, "C:\\Users\\me", "C:\\Proj");
	int r = why != NULL && strstr(why, why_part) != NULL && a == NULL;

	if (!r)
		printf("# %s: %s\n", entry, why ? why : "not refused");
	free(a);
	return r;
}

static int
str_is(char *got, const char *want)
{
	int r = got != NULL && strcmp(got, want) == 0;

	if (!r)
		printf("# got %s, want %s\n", got ? got : "NULL", want);
	free(got);
	return r;
}

static void
test_absolute(void)
{
	const char *H = "C:\\Users\\me", *C = "D:\\work\\proj";

	ok(abs_is("C:\\a\\b", H, C, "C:\\a\\b"), "drive-absolute kept");
	ok(abs_is("c:/a/b", H, C, "C:\\a\\b"), "\"/\" becomes \"\\\", the drive upper case");
	ok(abs_is("C:\\a\\\\b//c\\", H, C, "C:\\a\\b\\c"),
	    "repeated and trailing separators go");
	ok(abs_is("C:\\a\\.\\b\\.", H, C, "C:\\a\\b"), "\".\" components go");
	ok(abs_is("C:\\a\\b\\..\\c", H, C, "C:\\a\\c"), "\"..\" pops a component");
	ok(abs_is("C:\\..\\..\\Windows", H, C, "C:\\Windows"), "\"..\" stops at the root");
	ok(abs_is("C:\\a\\..", H, C, "C:\\"), "back to the root: \"C:\\\"");
	ok(abs_is("C:/", H, C, "C:\\") && abs_is("c:\\\\", H, C, "C:\\"), "the root");
	ok(abs_is("~", H, C, "C:\\Users\\me"), "\"~\" is the home");
	ok(abs_is("~\\.ssh", H, C, "C:\\Users\\me\\.ssh") &&
		abs_is("~/.ssh/id", H, C, "C:\\Users\\me\\.ssh\\id"),
	    "\"~\\x\" and \"~/x\"");
	ok(abs_is("~/..", H, C, "C:\\Users"), "\"..\" out of the home folds in text");
	ok(abs_is("~", NULL, C, NULL) && abs_is("~", "", C, NULL) &&
		abs_is("~\\x", "/home/me", C, NULL),
	    "no drive-absolute home: \"~\" is not made");
	ok(abs_is("~x", H, C, "D:\\work\\proj\\~x"), "\"~x\" is a relative name");
	ok(abs_is("src\\a", H, C, "D:\\work\\proj\\src\\a") &&
		abs_is("./src/a", H, C, "D:\\work\\proj\\src\\a"),
	    "relative against the cwd");
	ok(abs_is("..\\..\\..\\x", H, C, "D:\\x"), "relative \"..\" stops at the root");
	ok(abs_is("\\tmp\\x", H, C, "D:\\tmp\\x") && abs_is("/tmp/x", H, C, "D:\\tmp\\x"),
	    "rooted without a drive: on the cwd's drive");
	ok(abs_is("x", H, NULL, NULL) && abs_is("x", H, "/work", NULL) &&
		abs_is("\\x", H, "relative", NULL),
	    "relative without a drive-absolute cwd: none");
	ok(abs_is("", H, C, NULL) && abs_is(NULL, H, C, NULL), "empty: none");
	ok(abs_is("C:\\Répo\\日本", H, C, "C:\\Répo\\日本"), "UTF-8 names kept as written");
	ok(abs_is("C:\\a\\*.pem", H, C, "C:\\a\\*.pem") &&
		abs_is("C:\\a\\[ab]?", H, C, "C:\\a\\[ab]?"),
	    "glob characters kept");
	ok(pathw_normalize("/a/b") == NULL && pathw_normalize("C:x") == NULL &&
		pathw_normalize("\\\\s\\x") == NULL,
	    "normalize takes drive-absolute paths only");
}

static void
test_refusals(void)
{
	ok(refused("\\\\server\\share\\x", "UNC") && refused("//server/share", "UNC"),
	    "UNC paths");
	ok(refused("\\\\?\\C:\\x", "device") && refused("\\\\.\\PhysicalDrive0", "device"),
	    "device paths, \\\\?\\ before a drive too");
	ok(refused("C:foo", "drive-relative") && refused("c:", "drive-relative") &&
		refused("C:..\\x", "drive-relative"),
	    "drive-relative paths");
	ok(refused("C:\\a\\file.txt:hidden", "stream") &&
		refused("C:\\a\\file.txt::$DATA", "stream") && refused("~\\x:y", "stream") &&
		refused("rel:x", "stream") && refused("1:\\x", "stream"),
	    "a \":\" past the drive: alternate data streams");
	ok(refused("C:\\Repo\\.git.", "dot or a space") &&
		refused("C:\\Repo\\.git.\\hooks", "dot or a space") &&
		refused("C:\\Repo\\.git \\hooks", "dot or a space") &&
		refused("C:\\Repo\\...", "dot or a space") && refused("x.", "dot or a space"),
	    "names ending in a dot or a space (Windows strips them: \".git.\" is \".git\")");
	ok(refused("C:\\a\\NUL", "device") && refused("C:\\a\\con.txt", "device") &&
		refused("C:\\a\\Com1", "device") && refused("C:\\a\\lpt9.log", "device") &&
		refused("C:\\a\\AUX .x", "device"),
	    "DOS device names");
	ok(pathw_refusal("C:\\a\\COM0") == NULL && pathw_refusal("C:\\a\\console") == NULL &&
		pathw_refusal("C:\\a\\nul_x") == NULL,
	    "names that only start like a device");
	ok(refused("C:\\Repo\\GIT~1\\hooks", "8.3") && refused("C:\\PROGRA~1", "8.3") &&
		refused("C:\\a\\LONGNA~2.TXT", "8.3") && refused("~\\DOCU~12", "8.3"),
	    "8.3 short names");
	ok(pathw_refusal("C:\\a\\~1") == NULL && pathw_refusal("C:\\a\\x~") == NULL &&
		pathw_refusal("C:\\a\\backup~1.tar.gz") == NULL &&
		pathw_refusal("C:\\a\\verylongname~1") == NULL &&
		pathw_refusal("C:\\a\\ab~1.long") == NULL,
	    "not the shape of a short name");
	ok(refused("C:\\a\\b|c", "character") && refused("C:\\a\\<x>", "character") &&
		refused("C:\\a\\\"q\"", "character") && refused("C:\\a\\t\tab", "character"),
	    "characters Windows does not allow in a name");
	ok(pathw_refusal("C:\\a\\.\\b\\..\\c") == NULL && pathw_refusal("..\\x") == NULL &&
		pathw_refusal("~") == NULL && pathw_refusal("C:\\.git\\hooks") == NULL &&
		pathw_refusal("C:\\a b\\c.d") == NULL && pathw_refusal("/tmp/x") == NULL,
	    "\".\", \"..\", dotted and spaced names inside are taken");
}

static void
test_compare(void)
{
	ok(pathw_equal("C:\\Repo", "c:\\REPO") && !pathw_equal("C:\\Repo", "C:\\Repo2"),
	    "equal folds ASCII case");
	ok(!pathw_equal("C:\\Répo", "C:\\RÉPO"), "non-ASCII letters compare as written");
	ok(pathw_is_under("C:\\Repo\\.git\\hooks", "c:\\repo") &&
		pathw_is_under("c:\\repo\\.GIT\\hooks", "C:\\Repo\\.git"),
	    "a denyWrite C:\\Repo\\.git\\hooks ranks against an allowWrite c:\\repo");
	ok(pathw_is_strictly_under("C:\\REPO\\x", "c:\\repo") &&
		!pathw_is_strictly_under("C:\\REPO", "c:\\repo") &&
		pathw_is_under("C:\\REPO", "c:\\repo"),
	    "strictly under, and the same path is under itself");
	ok(!pathw_is_under("C:\\Repo2", "C:\\Repo") && !pathw_is_under("C:\\Rep", "C:\\Repo"),
	    "by component");
	ok(pathw_is_under("c:\\x", "C:\\") && !pathw_is_under("D:\\x", "C:\\") &&
		pathw_is_under("C:\\", "c:\\"),
	    "the root holds its drive only");
	ok(pathw_fold('a') == 'A' && pathw_fold('Z') == 'Z' && pathw_fold('\\') == '\\' &&
		pathw_fold((char)0xc3) == (char)0xc3,
	    "fold: ASCII letters only");
}

static void
test_pieces(void)
{
	ok(str_is(pathw_dirname("C:\\a\\b"), "C:\\a") &&
		str_is(pathw_dirname("C:\\a"), "C:\\") && str_is(pathw_dirname("C:\\"), "C:\\"),
	    "dirname");
	ok(strcmp(pathw_basename("C:\\a\\b.txt"), "b.txt") == 0, "basename");
	ok(str_is(pathw_join("C:\\", "a"), "C:\\a") &&
		str_is(pathw_join("C:\\a", "b"), "C:\\a\\b"),
	    "join");
	ok(pathw_depth("C:\\") == 0 && pathw_depth("C:\\a") == 1 &&
		pathw_depth("C:\\a\\b") == 2,
	    "depth");
	ok(pathw_is_drive_absolute("c:/x") && pathw_is_drive_absolute("C:\\") &&
		!pathw_is_drive_absolute("C:") && !pathw_is_drive_absolute("/x") &&
		!pathw_is_drive_absolute("\\\\?\\C:\\x"),
	    "drive-absolute");
}

int
main(void)
{
	test_absolute();
	test_refusals();
	test_compare();
	test_pieces();
	return tap_done();
}
