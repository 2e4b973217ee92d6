// Loader hooks for gen-profile.mjs: two of the reference's helpers are replaced for the
// generator's run (its own code is loaded from build/ref, never copied here).
//  - java-proxy-agent.js: no agent jar is found, so the profile carries no read allow for
//    the reference's own jar (srt has none).
//  - shell-quote.js: the wrapped command comes back as a JSON array, so the profile can be
//    taken from it without unquoting shell text.
export async function load(url, context, nextLoad) {
	if (url.endsWith('/dist/sandbox/java-proxy-agent.js')) {
		return {
			format: 'module',
			shortCircuit: true,
			source: `export * from ${JSON.stringify(url + '?real')};\n` +
			    'export async function getJavaProxyAgentJarPathAsync() { return null; }\n',
		};
	}
	if (url.endsWith('/dist/utils/shell-quote.js')) {
		return {
			format: 'module',
			shortCircuit: true,
			source: 'export function quote(args) { return JSON.stringify(args); }\n',
		};
	}
	return nextLoad(url, context);
}
