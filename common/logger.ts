import pino from 'pino';

// Secrets never reach a log line, whatever object is logged. The level is set from the
// configuration by each process entry (setLogLevel), so this module reads no environment.
export const logger = pino({
  level: 'info',
  redact: {
    paths: ['password', '*.password', 'token', '*.token', 'authorization', '*.authorization', 'req.headers.authorization', 'req.headers.cookie', '*.secret', '*.accessToken', '*.refreshToken', '*.sageUserPassword', '*.sageSenderPassword', 'privateKey', '*.privateKey', '*.client_assertion', '*.access_token', 'newPassword', 'currentPassword', 'confirmPassword'],
    censor: '[redacted]',
  },
  base: undefined,
});

export function setLogLevel(level: string): void {
  logger.level = level;
}
