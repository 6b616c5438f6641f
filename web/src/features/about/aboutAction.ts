import type { LoaderFunctionArgs } from 'react-router-dom';
import { sendContact, subscribe } from '../../api/mail';
import type { FormAnswer, LoaderDeps } from '../../loaders';

/**
 * The About page's two forms posted without JavaScript (with it, they call the API
 * themselves and never reach this): the answer is the About page with its texts (docs/product.md#about-contact-and-subscribe).
 */
export function aboutAction(deps: LoaderDeps) {
  return async ({ request }: LoaderFunctionArgs): Promise<FormAnswer> => {
    const body = await request.formData();
    const text = (name: string) => {
      const value = body.get(name);
      return typeof value === 'string' ? value : '';
    };
    if (text('form') === 'subscribe') {
      const fields = { email: text('email'), frequency: text('frequency') };
      const frequency = fields.frequency === 'each-post' ? 'each-post' : 'weekly';
      const ok = await subscribe(deps.api, fields.email, frequency).then(
        () => true,
        () => false,
      );
      return { form: 'subscribe', ok, fields: ok ? {} : fields };
    }
    const fields = {
      name: text('name'),
      email: text('email'),
      subject: text('subject'),
      message: text('message'),
    };
    const ok = await sendContact(deps.api, { ...fields, website: text('website') }).then(
      () => true,
      () => false,
    );
    return { form: 'contact', ok, fields: ok ? {} : fields };
  };
}
