// The counts every paged list answers beside its rows (page size 10, spec): which page, its size,
// how many rows match, how many pages they make (at least 1). Pure: zod only.
import { z } from 'zod';

export const pageCounts = {
  page: z.number().int().min(1),
  pageSize: z.number().int().min(1),
  total: z.number().int().min(0),
  pages: z.number().int().min(1),
};
