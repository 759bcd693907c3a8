/**
 * Who zipfs is to S3, and where the store is: as the AWS tools find them. Credentials from
 * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, else the profile (AWS_PROFILE,
 * else `default`) in ~/.aws/credentials (AWS_SHARED_CREDENTIALS_FILE); the region from AWS_REGION,
 * AWS_DEFAULT_REGION or the profile in ~/.aws/config (AWS_CONFIG_FILE), else us-east-1; the
 * endpoint from the URL's `endpoint` (open's endpoint), AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL,
 * else AWS's own. Read at each call, from the environment only: never kept.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ZipfsError } from '../base/errors.ts';

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** The sections of an INI file (~/.aws/credentials, ~/.aws/config), each a map of its keys. */
function iniSections(file: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return sections;
  }
  let current: Map<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/[#;].*$/, '').trim();
    const header = line.match(/^\[(.+)\]$/);
    if (header) {
      current = new Map();
      sections.set(header[1]!.trim(), current);
    } else if (current && line.includes('=')) {
      const at = line.indexOf('=');
      current.set(line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim());
    }
  }
  return sections;
}

function profile(): string {
  return process.env.AWS_PROFILE || process.env.AWS_DEFAULT_PROFILE || 'default';
}

function awsFile(variable: string, name: string): string {
  return process.env[variable] || path.join(os.homedir(), '.aws', name);
}

export function s3Credentials(): S3Credentials {
  const env = process.env;
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY)
    return {
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
    };
  const section = iniSections(awsFile('AWS_SHARED_CREDENTIALS_FILE', 'credentials')).get(profile());
  const id = section?.get('aws_access_key_id');
  const secret = section?.get('aws_secret_access_key');
  if (id && secret) {
    const token = section?.get('aws_session_token');
    return { accessKeyId: id, secretAccessKey: secret, ...(token ? { sessionToken: token } : {}) };
  }
  throw new ZipfsError(
    'PERMISSION_DENIED',
    `No S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones), ` +
      `or give profile "${profile()}" keys in ~/.aws/credentials (AWS_PROFILE names another).`,
  );
}

export function s3Region(): string {
  const env = process.env;
  if (env.AWS_REGION) return env.AWS_REGION;
  if (env.AWS_DEFAULT_REGION) return env.AWS_DEFAULT_REGION;
  const name = profile();
  const config = iniSections(awsFile('AWS_CONFIG_FILE', 'config'));
  return (name === 'default' ? config.get('default') : config.get(`profile ${name}`))?.get('region') ?? 'us-east-1';
}

/** The store's base URL for `bucket`, and whether keys go in its path (S3-compatible stores, loopback). */
export function s3Endpoint(bucket: string, given: string | null, region: string): { base: string; pathStyle: boolean } {
  const endpoint = given || process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL;
  if (endpoint) return { base: endpoint.replace(/\/+$/, ''), pathStyle: true };
  return { base: `https://${bucket}.s3.${region}.amazonaws.com`, pathStyle: false };
}
