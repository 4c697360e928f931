import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { libraryLoadFailure } from './hwErrors.ts';

describe('hardware errors', () => {
  it('a library that cannot be loaded is answered by the loader code, never the path Node names', async () => {
    const missing = await import('@trezor/not-a-package' as string).catch((e: unknown) => e);
    assert.match((missing as Error).message, / imported from \//, 'Node names the importing file by absolute path');
    const err = libraryLoadFailure(missing);
    assert.equal(err.errorType, 'HwError');
    assert.equal(err.message, 'hardware wallet call failed: @trezor/connect is unusable (ERR_MODULE_NOT_FOUND); the service log has the details');
    assert.deepEqual(err.data, { kind: 'Failure' });
    assert.equal(libraryLoadFailure(new Error('x')).message.includes('(failed to load)'), true);
  });
});
