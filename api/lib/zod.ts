// zod with OpenAPI metadata (`.openapi({...})`): what a schema checks in code that JSON Schema
// cannot say by itself (a refinement's pattern) is declared beside the check, for api/openapi.ts.
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { phone, PHONE_RE } from '../../common/validation';

extendZodWithOpenApi(z);

export { z };

/** The phone rule (common/validation.ts) as the document shows it: its pattern and the 10 digits. */
export const documentedPhone = phone.openapi({ type: 'string', pattern: PHONE_RE.source, description: 'As typed: digits, spaces, ( ) + . or -; exactly 10 digits (answered as the 10 digits)' });
