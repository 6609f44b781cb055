// Validation of the reports' CycloneDX documents against the official 1.6 schema.
import { Validator } from '@cfworker/json-schema';
import { expect } from 'vitest';
// The official schemas ship in @cyclonedx/cyclonedx-library, whose exports do not name them: read by path.
import bom16 from '../node_modules/@cyclonedx/cyclonedx-library/res/schema/bom-1.6.SNAPSHOT.schema.json';
import spdx from '../node_modules/@cyclonedx/cyclonedx-library/res/schema/spdx.SNAPSHOT.schema.json';
import jsf from '../node_modules/@cyclonedx/cyclonedx-library/res/schema/jsf-0.82.SNAPSHOT.schema.json';

export function validateCycloneDx(document: unknown) {
  const validator = new Validator(bom16 as any, '7', false);
  validator.addSchema(spdx as any, 'http://cyclonedx.org/schema/spdx.schema.json');
  validator.addSchema(jsf as any, 'http://cyclonedx.org/schema/jsf-0.82.schema.json');
  const result = validator.validate(document);
  expect(result.errors.slice(0, 3)).toEqual([]);
  expect(result.valid).toBe(true);
}
