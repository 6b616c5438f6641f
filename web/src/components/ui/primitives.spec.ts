import { createElement as h } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { Field } from './Field';
import { ErrorLine, StatusLine } from './StatusLine';
import { SubmitButton } from './SubmitButton';

const html = (element: Parameters<typeof renderToStaticMarkup>[0]) => renderToStaticMarkup(element);

describe('form primitives', () => {
  test('StatusLine: an alert for an error, a status for a success, an empty status line for none', () => {
    expect(html(h(StatusLine, { message: { kind: 'error', text: 'No.' } }))).toBe(
      '<p role="alert" class="form-error">No.</p>',
    );
    expect(html(h(StatusLine, { message: { kind: 'success', text: 'Saved.' } }))).toBe(
      '<p role="status" class="form-success">Saved.</p>',
    );
    expect(html(h(StatusLine, { message: null }))).toBe('<p role="status" class="form-success"></p>');
  });

  test('ErrorLine: always an alert, with the id fields point to', () => {
    expect(html(h(ErrorLine, { id: 'login-error', error: 'Wrong password' }))).toBe(
      '<p id="login-error" class="form-error" role="alert">Wrong password</p>',
    );
    expect(html(h(ErrorLine, { error: undefined }))).toBe('<p class="form-error" role="alert"></p>');
  });

  test('Field: the label names the control inside', () => {
    expect(html(h(Field, { id: 'email', label: 'Email', children: h('input', { id: 'email' }) }))).toBe(
      '<div class="field"><label for="email">Email</label><input id="email"/></div>',
    );
    expect(html(h(Field, { id: 'q', label: 'Quality', className: 'admin-slider', children: null }))).toBe(
      '<div class="field admin-slider"><label for="q">Quality</label></div>',
    );
  });

  test('SubmitButton: disabled with its pending label while pending, and when told so', () => {
    expect(html(h(SubmitButton, { pending: false, pendingLabel: 'Saving...' }, 'Save'))).toBe(
      '<button type="submit" class="button">Save</button>',
    );
    expect(html(h(SubmitButton, { pending: true, pendingLabel: 'Saving...' }, 'Save'))).toBe(
      '<button type="submit" class="button" disabled="">Saving...</button>',
    );
    expect(html(h(SubmitButton, { pending: true }, 'Register'))).toBe(
      '<button type="submit" class="button" disabled="">Register</button>',
    );
    expect(html(h(SubmitButton, { pending: false, disabled: true, value: 'off' }, 'Turn off'))).toBe(
      '<button type="submit" class="button" disabled="" value="off">Turn off</button>',
    );
  });
});
