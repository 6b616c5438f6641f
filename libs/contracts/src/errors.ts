/** User-facing error texts (SPEC.md §8). The server sends them; the web shows them. */
export const ErrorText = {
  invalidCredentials: 'Invalid username or password',
  loginFailed: 'Login failed',
  registrationFailed: 'Registration failed',
  usernameTaken: 'That username is already taken',
  serviceUnavailable: 'Service unavailable',
  unauthorized: 'Authentication required',
  invalidToken: 'Invalid or expired token',
  forbidden: 'Admin role required',
  tooManyAttempts: 'Too many failed sign-in attempts. Please try again later.',
  notFound: 'Not found',
  internal: 'Internal server error',
  bodyTooLarge: 'Request body is too large',
  malformedJson: 'Malformed JSON body',
} as const;
