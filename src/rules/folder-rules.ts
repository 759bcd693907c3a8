/**
 * What the workspace's folder can hold (platform-names.ts): whether it folds case, and whether Windows's
 * name rules apply. Whether a folder folds case is probed where the workspaces live when a session is made
 * (case-probe.ts) and recorded in the session; the name rules follow the platform. A session's rules are
 * asked of sessionFolderRules, never put together by hand from its record.
 */
import { foldsCaseByDefault, hostPlatform, refusesWindowsNames, type Platform } from './platform.ts';

export interface FolderRules {
  caseInsensitive?: boolean;
  windowsNames?: boolean;
}

/**
 * The rules of a folder that does (or does not, or was not probed: undefined) fold case, on `platform`.
 * Unprobed (not there yet, or not writable: open then fails making its folder), the platform's default
 * folders decide.
 */
export function folderRules(
  caseInsensitive: boolean | undefined,
  platform: Platform = hostPlatform(),
): Required<FolderRules> {
  return {
    caseInsensitive: caseInsensitive ?? foldsCaseByDefault(platform),
    windowsNames: refusesWindowsNames(platform),
  };
}

/**
 * The rules of an open session's folder, from what its record says (`case_insensitive`, written when it
 * was made; a record without it was made on a folder that tells case apart).
 */
export function sessionFolderRules(
  record: { case_insensitive?: boolean },
  platform: Platform = hostPlatform(),
): Required<FolderRules> {
  return { caseInsensitive: record.case_insensitive === true, windowsNames: refusesWindowsNames(platform) };
}
