/** What the workspace's folder can hold (platform-names.ts): case folded, Windows names. */
export interface FolderRules {
  caseInsensitive?: boolean;
  windowsNames?: boolean;
}
