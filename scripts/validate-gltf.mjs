// Validates a glTF/GLB file with the Khronos glTF validator (npm package `gltf-validator`,
// installed into .tools/ by scripts/install-test-deps.sh).
//
// Usage: node scripts/validate-gltf.mjs FILE
// Prints a JSON summary: error/warning/info/hint counts and every reported message.
// Exit status: 0 when there are no errors and no warnings, 1 otherwise, 2 on usage or setup problems.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const file = process.argv[2];
if (!file) {
    console.error('usage: node scripts/validate-gltf.mjs FILE');
    process.exit(2);
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(repoRoot, '.tools', 'package.json'));
let validator;
try {
    validator = require('gltf-validator');
} catch (e) {
    console.error('gltf-validator is not installed in .tools/ (run: source scripts/install-test-deps.sh)');
    process.exit(2);
}

const severityNames = ['error', 'warning', 'info', 'hint'];
let bytes;
try {
    bytes = new Uint8Array(readFileSync(file));
} catch (e) {
    console.error(`cannot read ${file}: ${e.message}`);
    process.exit(2);
}
let report;
try {
    report = await validator.validateBytes(bytes, {
        uri: path.basename(file),
        maxIssues: 0,
        writeTimestamp: false,
    });
} catch (e) {
    console.error(`validator could not read ${file}: ${e}`);
    process.exit(2);
}

const issues = report.issues;
const summary = {
    file,
    validatorVersion: report.validatorVersion,
    errors: issues.numErrors,
    warnings: issues.numWarnings,
    infos: issues.numInfos,
    hints: issues.numHints,
    messages: issues.messages.map((m) => ({
        severity: severityNames[m.severity] ?? String(m.severity),
        code: m.code,
        message: m.message,
        pointer: m.pointer,
    })),
};
console.log(JSON.stringify(summary, null, 2));
// Not process.exit(): it would cut a long report written to a pipe short.
process.exitCode = issues.numErrors > 0 || issues.numWarnings > 0 ? 1 : 0;
