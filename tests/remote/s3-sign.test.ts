/** The SigV4 signer (src/remote/s3-sign.ts) against AWS's own worked example, and S3 URLs made HTTP ones. */
import { describe, expect, it } from 'bun:test';
import { s3HttpUrl, s3Place, signS3 } from '../../src/remote/s3-sign.ts';

describe('signing S3 requests (SigV4)', () => {
  it("gives AWS's documented signature for its GET Object example", () => {
    // docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html, "Example: GET Object".
    const headers = signS3(
      'GET',
      'https://examplebucket.s3.amazonaws.com/test.txt',
      { Range: 'bytes=0-9' },
      {
        credentials: {
          accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
          secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
        },
        region: 'us-east-1',
        now: new Date('2013-05-24T00:00:00Z'),
        payloadHash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      },
    );
    expect(headers.Authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  it('addresses a bucket by path on a given endpoint, and by host on AWS', () => {
    const withEndpoint = s3Place('s3://bucket/dir/a%20b.zip?endpoint=http%3A%2F%2F127.0.0.1%3A9000');
    expect(s3HttpUrl(withEndpoint)).toBe('http://127.0.0.1:9000/bucket/dir/a%20b.zip');
    const saved = { ...process.env };
    try {
      delete process.env.AWS_ENDPOINT_URL;
      delete process.env.AWS_ENDPOINT_URL_S3;
      process.env.AWS_REGION = 'eu-west-1';
      expect(s3HttpUrl(s3Place('s3://bucket/a.zip'))).toBe('https://bucket.s3.eu-west-1.amazonaws.com/a.zip');
    } finally {
      process.env = saved;
    }
  });
});
