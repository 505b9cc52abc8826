#!/usr/bin/env node
// CI's typecheck and eslint in one process (.ci/run): the TypeScript program of tsconfig.json is built and checked
// once, as `tsc -p tsconfig.json` does, and eslint's typed rules run on that same program (typescript-eslint's
// `programs` option) instead of building it a second time. Same rules, same files, same diagnostics as
// `npm run typecheck` and `npm run lint:eslint`, which stay the commands to run by hand; together they cost this
// machine about 75 s of CPU, this about 47. A file eslint lints that the program does not hold fails loudly
// (typescript-eslint refuses it), so nothing is skipped silently. Exits 1 when either step reports a problem.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The program of tsconfig.json, and what `tsc -p tsconfig.json` would report for it. */
function typecheck() {
  const configErrors = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path.join(root, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => configErrors.push(diagnostic) },
  );
  if (parsed === undefined) return { program: undefined, diagnostics: configErrors };
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    projectReferences: parsed.projectReferences,
    configFileParsingDiagnostics: parsed.errors,
  });
  return { program, diagnostics: [...configErrors, ...ts.getPreEmitDiagnostics(program)] };
}

const host = {
  getCanonicalFileName: (name) => name,
  getCurrentDirectory: () => root,
  getNewLine: () => '\n',
};

const started = performance.now();
const { program, diagnostics } = typecheck();
if (diagnostics.length > 0) process.stdout.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
console.log(`typecheck: ${diagnostics.length} error(s) in ${Math.round((performance.now() - started) / 1000)} s`);
if (program === undefined) process.exit(1);

const linting = performance.now();
const eslint = new ESLint({
  cwd: root,
  overrideConfig: [
    {
      files: ['**/*.ts'],
      languageOptions: { parserOptions: { projectService: false, project: null, programs: [program] } },
    },
  ],
});
const results = await eslint.lintFiles(['.']);
const problems = results.reduce((sum, result) => sum + result.errorCount + result.warningCount, 0);
const report = await (await eslint.loadFormatter('stylish')).format(results);
if (report !== '') console.log(report);
console.log(`eslint: ${problems} problem(s) in ${Math.round((performance.now() - linting) / 1000)} s`);
process.exit(diagnostics.length > 0 || problems > 0 ? 1 : 0);
