// The form primitives every form uses.
export { Field } from './Field';
export { ErrorLine, LoadFailed, StatusLine, type StatusMessage } from './StatusLine';
export { SubmitButton } from './SubmitButton';
export { runSubmit, useSubmit, type SubmitOptions } from './useSubmit';
