export const STORAGE = Symbol('STORAGE');
export const JOB_QUEUE = Symbol('JOB_QUEUE');
export const POSTS_CLIENT = Symbol('POSTS_CLIENT');
export const FFMPEG = Symbol('FFMPEG');
