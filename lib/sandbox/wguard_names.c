/*
 * The names the mandatory denies are about (SPEC §7, BEHAVIOR §4.1): one table for the
 * Linux plan's walk, srt-seccomp's supervisor (wguard.c) and the Windows plan
 * (plan_windows.c). Pure data, built for Windows too.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "wguard.h"

#define nitems(a) (sizeof(a) / sizeof((a)[0]))

#define WHY_SHELL "mandatory deny: shell start-up file"
#define WHY_GITCONF "mandatory deny: git configuration"
#define WHY_EDITOR "mandatory deny: editor settings"
#define WHY_AGENT "mandatory deny: agent settings"
#define WHY_TOOL "mandatory deny: tool configuration that runs commands"
#define WHY_HOOKS "mandatory deny: git hook configuration"
#define WHY_HOME "mandatory deny: home directory start-up file"

const struct wguard_name wguard_names[] = {
	{ ".bashrc", WG_FILE, WHY_SHELL }, { ".bash_profile", WG_FILE, WHY_SHELL },
	{ ".bash_login", WG_FILE, WHY_SHELL }, { ".bash_logout", WG_FILE, WHY_SHELL },
	{ ".bash_aliases", WG_FILE, WHY_SHELL }, { ".profile", WG_FILE, WHY_SHELL },
	{ ".zshrc", WG_FILE, WHY_SHELL }, { ".zprofile", WG_FILE, WHY_SHELL },
	{ ".zshenv", WG_FILE, WHY_SHELL }, { ".zlogin", WG_FILE, WHY_SHELL },
	{ ".zlogout", WG_FILE, WHY_SHELL }, { ".gitconfig", WG_FILE, WHY_GITCONF },
	{ ".gitmodules", WG_FILE, WHY_GITCONF }, { ".ripgreprc", WG_FILE, WHY_TOOL },
	{ ".envrc", WG_FILE, WHY_TOOL }, /* direnv */
	{ ".npmrc", WG_FILE, WHY_TOOL }, /* script-shell, node-options */
	{ ".yarnrc", WG_FILE, WHY_TOOL },
	{ ".yarnrc.yml", WG_FILE, WHY_TOOL },   /* yarnPath: a script yarn runs */
	{ ".pnpmfile.cjs", WG_FILE, WHY_TOOL }, /* run by every pnpm install */
	{ ".pre-commit-config.yaml", WG_FILE, WHY_HOOKS }, { ".mcp.json", WG_FILE, WHY_AGENT },
	{ ".claude/settings.json", WG_FILE, WHY_AGENT }, /* hooks run unsandboxed */
	{ ".claude/settings.local.json", WG_FILE, WHY_AGENT },
	{ ".vscode", WG_DIR, WHY_EDITOR }, { ".idea", WG_DIR, WHY_EDITOR },
	{ ".claude/commands", WG_DIR, WHY_AGENT }, { ".claude/agents", WG_DIR, WHY_AGENT },
	{ ".claude/hooks", WG_DIR, WHY_AGENT }, /* scripts settings.json runs */
	{ ".husky", WG_DIR, WHY_HOOKS },
	{ "lefthook.yml", WG_FILE, WHY_HOOKS }, /* git hooks' commands */
	{ ".lefthook.yml", WG_FILE, WHY_HOOKS }, { "lefthook-local.yml", WG_FILE, WHY_HOOKS },
	{ ".lefthook-local.yml", WG_FILE, WHY_HOOKS },
	{ ".overcommit.yml", WG_FILE, WHY_HOOKS },
	{ ".devcontainer", WG_DIR, WHY_EDITOR }, /* initializeCommand runs on the host */
};
const size_t wguard_nnames = nitems(wguard_names);

/*
 * .gitmodules is what git submodule add writes in the user's work tree. With the write
 * guard it is not bound read-only: the guard lets it change as git changes it (its lock
 * file renamed onto it), judged by content like a git config (wguard.c); in place it is
 * never written. Without the guard (--unguarded) it stays bound read-only.
 */
bool
wguard_name_writable(const struct wguard_name *n)
{
	return strcmp(n->name, ".gitmodules") == 0;
}

/*
 * Below the home directory, at these places only: what ssh, git, the shells, editors,
 * desktop sessions and common tools run or take commands from. The list cannot be
 * complete (srt(1) CAVEATS): a writable home directory is never safe.
 */
const struct wguard_name wguard_home_names[] = {
	{ ".ssh", WG_DIR, WHY_HOME }, /* rc, config, authorized_keys */
	{ ".pam_environment", WG_FILE, WHY_HOME },
	{ ".config/git", WG_DIR, WHY_GITCONF },
	{ ".config/fish", WG_DIR, WHY_HOME },
	{ ".config/nvim", WG_DIR, WHY_HOME },
	{ ".config/autostart", WG_DIR, WHY_HOME },
	{ ".config/systemd", WG_DIR, WHY_HOME },
	{ ".config/environment.d", WG_DIR, WHY_HOME },
	{ ".config/Code/User", WG_DIR, WHY_EDITOR },
	{ ".config/pip", WG_DIR, WHY_HOME },
	{ ".local/bin", WG_DIR, WHY_HOME }, /* on PATH */
	{ ".bashrc.d", WG_DIR, WHY_SHELL },
	{ ".oh-my-zsh", WG_DIR, WHY_SHELL },
	{ ".emacs.d", WG_DIR, WHY_EDITOR },
	{ ".vim", WG_DIR, WHY_EDITOR },
	{ ".vimrc", WG_FILE, WHY_EDITOR },
	{ ".gvimrc", WG_FILE, WHY_EDITOR },
	{ ".exrc", WG_FILE, WHY_EDITOR },
	{ ".emacs", WG_FILE, WHY_EDITOR },
	{ ".tmux.conf", WG_FILE, WHY_HOME },
	{ ".inputrc", WG_FILE, WHY_SHELL },
	{ ".xinitrc", WG_FILE, WHY_HOME },
	{ ".xprofile", WG_FILE, WHY_HOME },
	{ ".xsession", WG_FILE, WHY_HOME },
	{ ".docker/config.json", WG_FILE, WHY_HOME }, /* credsStore: a program run */
	{ ".cargo/config", WG_FILE, WHY_HOME },
	{ ".cargo/config.toml", WG_FILE, WHY_HOME },
	{ ".kube/config", WG_FILE, WHY_HOME }, /* exec credential plugins */
	{ ".aws/config", WG_FILE, WHY_HOME },  /* credential_process */
	{ ".npm-init.js", WG_FILE, WHY_HOME },
	{ ".pip/pip.conf", WG_FILE, WHY_HOME },
	{ ".pypirc", WG_FILE, WHY_HOME },
	{ ".netrc", WG_FILE, WHY_HOME },
	{ ".hgrc", WG_FILE, WHY_HOME }, /* mercurial hooks */
	{ ".gdbinit", WG_FILE, WHY_HOME },
	{ ".lldbinit", WG_FILE, WHY_HOME },
	{ ".psqlrc", WG_FILE, WHY_HOME },
	{ ".gnupg/gpg-agent.conf", WG_FILE, WHY_HOME }, /* pinentry-program */
	{ ".gnupg/gpg.conf", WG_FILE, WHY_HOME },
	{ ".srt-settings.json", WG_FILE, "settings file" },
};
const size_t wguard_nhome_names = nitems(wguard_home_names);

const struct wguard_git_file wguard_git_files[] = {
	{ "hooks", false, "mandatory deny: git hooks" },
	{ "commondir", false, "mandatory deny: git commondir" },
	{ "commondir.lock", false, "mandatory deny: git commondir" },
	{ "gitdir", false, "mandatory deny: git worktree pointer" },
	{ "config", true, "mandatory deny: git configuration" },
	{ "config.lock", true, "mandatory deny: git configuration" },
	{ "config.worktree", true, "mandatory deny: git configuration" },
	{ "config.worktree.lock", true, "mandatory deny: git configuration" },
};
const size_t wguard_ngit_files = nitems(wguard_git_files);
