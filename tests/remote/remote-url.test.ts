/** Remote URLs (src/remote/remote-url.ts): no credential is accepted in one, and messages show none. */
import { describe, expect, it } from 'bun:test';
import { ZipfsError } from '../../src/base/errors.ts';
import { remoteUrl, shown } from '../../src/remote/remote-url.ts';

function refusal(input: string): ZipfsError {
  try {
    remoteUrl(input);
  } catch (error) {
    return error as ZipfsError;
  }
  throw new Error(`${input} was accepted`);
}

describe('remote URLs', () => {
  it('refuse a user, a password or a presigned query, without repeating the secret', () => {
    for (const input of [
      'https://agent:hunter2@example.com/a.zip',
      'https://example.com/a.zip?X-Amz-Credential=AKID%2F1&X-Amz-Signature=hunter2',
      'https://example.com/a.zip?sig=hunter2',
      'https://example.com/a.zip?access_token=hunter2',
    ]) {
      const error = refusal(input);
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).not.toContain('hunter2');
    }
  });

  it('accept plain and S3 URLs, and show them without query or user', () => {
    expect(remoteUrl('https://example.com/dir/a.zip?version=2').href).toBe('https://example.com/dir/a.zip?version=2');
    expect(remoteUrl('s3://bucket/key.zip').href).toBe('s3://bucket/key.zip');
    expect(refusal('s3://bucket').code).toBe('INVALID_INPUT');
    expect(shown('https://u:p@example.com/a.zip?sig=x')).toBe('https://example.com/a.zip');
  });
});
