import { isSystemError } from '../base/errors.ts';

/** Whether a process with this pid exists on this machine (EPERM: it does, owned by someone else). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isSystemError(error, 'EPERM');
  }
}
