// A failure with its HTTP status and the message the user sees: thrown by the api, and by the
// warehouse's report answers (warehouse/reports/answers.ts), which the api and the worker's report
// packs both compute. api/lib/errors.ts re-exports it and answers it with its status.
export class ApiError extends Error {
  constructor(
    public readonly status: number,
    message: string,
    /** errors[0].msg when it should differ from message (e.g. the detailed cause). */
    public readonly detail?: string,
  ) {
    super(message);
  }
}
