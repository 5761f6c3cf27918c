import pino from 'pino';

// Secrets never reach a log line, whatever object is logged.
export const logger = pino({
  level: process.env.LOG_LEVEL ?? 'info',
  redact: {
    paths: ['password', '*.password', 'token', '*.token', 'authorization', '*.authorization', 'req.headers.authorization', 'req.headers.cookie', '*.secret', '*.accessToken', '*.refreshToken', '*.sageUserPassword', '*.sageSenderPassword', 'newPassword', 'currentPassword', 'confirmPassword'],
    censor: '[redacted]',
  },
  base: undefined,
});
