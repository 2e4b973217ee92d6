// Print the reference's glob translation for the unit test of lib/globre.c:
//
//   node gen-globre.mjs REFDIR > globre.tsv
//
// One line per case: PATTERN, STRING, the regex, the deny regex, whether each matches
// STRING (1/0), tab-separated. Hand-picked patterns first, then random ones over an
// alphabet of the characters that matter (none holds a tab or a line break).
const refdir = process.argv[2];
const { globToRegex, denyGlobRegex } = await import(`${refdir}/dist/sandbox/glob-pattern.js`);

const picked = [
	['*.ts', 'a.ts'], ['*.ts', 'a/b.ts'], ['src/**/*.ts', 'src/a.ts'],
	['src/**/*.ts', 'src/x/y/a.ts'], ['src/**/*.ts', 'srcx/a.ts'], ['**/.env', '.env'],
	['**/.env', 'a/b/.env'], ['**/.env', 'a/b/.envx'], ['/**/.env', '/x/.env/y'],
	['file?.txt', 'file1.txt'], ['file?.txt', 'file/.txt'], ['file?.txt', 'file12.txt'],
	['file[0-9].txt', 'file3.txt'], ['file[0-9].txt', 'filea.txt'], ['[abc]', 'b'],
	['[a-]', '-'], ['[-a]', '-'], ['[a-c-e]', '-'], ['[a-c-e]', 'd'], ['[z-a]x', '[z-a]x'],
	['[z-a]x', 'zx'], ['[user-id]', '[user-id]'], ['[abc', '[abc'], ['abc]', 'abc]'],
	['[]', '[]'], ['[]x]', ']x]'], ['[!a]', '!'], ['[!a]', 'b'], ['[^a]', '^'],
	['[^a]', 'b'], ['[.-0]', '/'], ['a[.-0]b', 'a/b'], ['[\\\\]', '\\'],
	['[$(|)+{}]', '|'], ['a.b', 'axb'], ['a.b', 'a.b'], ['a+b(c)|d^$.{1}', 'a+b(c)|d^$.{1}'],
	['***', 'a/b'], ['***/x', 'a/b/x'], ['***/x', 'x'], ['**/**/x', 'x'], ['**/**/x', 'a/x'],
	['*/**/*', 'a'], ['*/**/*', 'a/b'], ['a**b', 'a/x/b'], ['a*b', 'a/b'], ['**', ''],
	['**/', 'a/'], ['**/', ''], ['x/**', 'x/'], ['x/**', 'x'], ['?*', ''], ['*?*', 'a'],
	['[[]', '['], ['[a[]', '['], ['a[b/c]d', 'a/d'], ['a[b/c]d', 'abd'], ['', ''],
	['/', '/'], ['/*', '/'], ['/*', '/x/y'], ['é?', 'éé'], ['[à-é]', 'ä'], ['[à-é]', 'a'],
	['a//b', 'a//b'], ['**/x/**/y/**', 'x/y/'], ['**/x/**/y/**', 'q/x/r/s/y/t'],
];
const alpha = ['a', 'b', '/', '*', '?', '[', ']', '-', '.', '\\', '^', '!', '(', '|', '$', 'é'];
let seed = 20240601;
const rnd = n => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
const rstr = max => { let s = ''; for (let i = rnd(max); i > 0; i--) s += alpha[rnd(alpha.length)]; return s; };
const cases = [...picked];
for (let i = 0; i < 300; i++)
	cases.push([rstr(9), rstr(10)]);
// Strings shaped like their pattern, so that more of them match.
for (let i = 0; i < 300; i++) {
	const p = rstr(9);
	const s = p.replace(/\[[^\]]*\]|[*?]+/g, () => rstr(4)) + (rnd(3) === 0 ? '/' + rstr(3) : '');
	cases.push([p, s]);
}
for (const [p, s] of cases) {
	const r = globToRegex(p), d = denyGlobRegex(p);
	const m = new RegExp(r).test(s) ? 1 : 0, dm = new RegExp(d).test(s) ? 1 : 0;
	process.stdout.write(`${p}\t${s}\t${r}\t${d}\t${m}\t${dm}\n`);
}
