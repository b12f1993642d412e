// Shared by the config tests: the ConfigError a call throws.
import { ConfigError } from '../../src/core/errors.js';

/** The ConfigError `f` throws; any other error is thrown on, and no error at all fails the test. */
export function configError(f: () => unknown): ConfigError {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}
