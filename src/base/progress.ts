/** A long operation's report of how far it is: `done` of `total` (bytes, entries), and what it is at. */
export type Progress = (done: number, total: number, message?: string) => void;
