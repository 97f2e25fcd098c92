#!/usr/bin/env node
// Validates SARIF logs against the SARIF 2.1.0 JSON schema (sarif-schema-2.1.0.json beside this
// file, see README.md) with ajv, plus the rule GitHub code scanning adds on top of the schema:
// every result needs at least one location. Usage: validate.js FILE... ('-' reads stdin).
// Exit 0 when every file is valid, 1 with the errors otherwise.
'use strict';
const fs = require('fs');
const path = require('path');
const Ajv = require('ajv-draft-04');
const addFormats = require('ajv-formats');

const schema = JSON.parse(fs.readFileSync(path.join(__dirname, 'sarif-schema-2.1.0.json'), 'utf8'));
// unicodeRegExp off: the schema's language pattern ('...]?$') is valid only without the u flag.
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(schema);

let failed = 0;
const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: validate.js FILE...');
  process.exit(2);
}
for (const file of files) {
  const text = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  const problems = [];
  let log;
  try {
    log = JSON.parse(text);
  } catch (e) {
    problems.push(`not JSON: ${e.message}`);
  }
  if (log !== undefined) {
    if (!validate(log)) {
      for (const e of validate.errors) problems.push(`${e.instancePath || '/'} ${e.message}`);
    }
    (log.runs || []).forEach((run, r) => {
      (run.results || []).forEach((result, i) => {
        const locations = result.locations || [];
        if (locations.length === 0) problems.push(`/runs/${r}/results/${i} has no location`);
        locations.forEach((location, l) => {
          const physical = location.physicalLocation;
          if (!physical || !physical.artifactLocation || !physical.artifactLocation.uri)
            problems.push(`/runs/${r}/results/${i}/locations/${l} has no physical artifact uri`);
        });
      });
    });
  }
  if (problems.length) {
    failed++;
    console.error(`${file}: INVALID`);
    for (const p of problems) console.error(`  ${p}`);
  }
}
process.exit(failed ? 1 : 0);
