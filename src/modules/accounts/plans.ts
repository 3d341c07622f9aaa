// The plan table lives in platform/ (auth's rate limiter reads it on every request); the
// accounts module's name for it stays for the CLI and the tests.
export * from '../../platform/plans.ts';
