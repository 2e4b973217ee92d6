// Print the reference tool's macOS Seatbelt profile for a settings file, on any host.
//
//   node gen-profile.mjs REFDIR SETTINGS CWD [ROOT]
//
// REFDIR is the installed package (build/ref/node_modules/@anthropic-ai/sandbox-runtime).
// The command runs with process.platform set to "darwin", from CWD, with HOME as given in
// the environment. A settings file without httpProxyPort/socksProxyPort gets 3128 and 1080
// (what `srt-policy plan --target macos` shows), so no proxy is started. The log tag is
// printed as @TAG@ and ROOT, when given, as @ROOT@.
import { register } from 'node:module';
import * as fs from 'node:fs';

const [refdir, settingsPath, cwd, root] = process.argv.slice(2);
if (!refdir || !settingsPath || !cwd) {
	process.stderr.write('usage: node gen-profile.mjs REFDIR SETTINGS CWD [ROOT]\n');
	process.exit(2);
}
Object.defineProperty(process, 'platform', { value: 'darwin' });
register('./ref-hooks.mjs', import.meta.url);
process.chdir(cwd);

const { SandboxRuntimeConfigSchema } = await import(`${refdir}/dist/sandbox/sandbox-config.js`);
const { SandboxManager } = await import(`${refdir}/dist/sandbox/sandbox-manager.js`);

const parsed = SandboxRuntimeConfigSchema.safeParse(
    JSON.parse(fs.readFileSync(settingsPath, 'utf8')));
if (!parsed.success) {
	process.stderr.write(`gen-profile: ${settingsPath}: ${parsed.error.message}\n`);
	process.exit(2);
}
const config = parsed.data;
config.network.httpProxyPort ??= 3128;
config.network.socksProxyPort ??= 1080;

await SandboxManager.initialize(config);
const words = JSON.parse(await SandboxManager.wrapWithSandbox('true'));
const at = words.indexOf('/usr/bin/sandbox-exec');
if (at < 0 || words[at + 1] !== '-p') {
	process.stderr.write('gen-profile: no sandbox-exec -p in the wrapped command\n');
	process.exit(1);
}
let profile = words[at + 2];
profile = profile.replace(/CMD64_[A-Za-z0-9+/=]*_END__[a-z0-9]+_SBX/g, '@TAG@');
if (root) {
	if (!/^[A-Za-z0-9/_-]+$/.test(root)) {
		process.stderr.write(`gen-profile: ROOT must be made of [A-Za-z0-9/_-]: ${root}\n`);
		process.exit(2);
	}
	profile = profile.split(root).join('@ROOT@');
}
process.stdout.write(profile + '\n');
await SandboxManager.reset();
process.exit(0);
