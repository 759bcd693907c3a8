/** The file-type bits of a Unix mode (stat's st_mode, a zip entry's external attributes' high half). */
export const S_IFMT = 0o170000;
export const S_IFLNK = 0o120000;
export const S_IFDIR = 0o040000;
export const S_IFREG = 0o100000;
export const S_IFIFO = 0o010000;
export const S_IFSOCK = 0o140000;
export const S_IFCHR = 0o020000;
export const S_IFBLK = 0o060000;
