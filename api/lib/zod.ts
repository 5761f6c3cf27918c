// zod with OpenAPI metadata (`.openapi({...})`): what a schema checks in code that JSON Schema
// cannot say by itself (a refinement's pattern) is declared beside the check, for api/openapi.ts.
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

export { z };
