import { useId } from 'react';
import { from12Hour, to12Hour, type Period, type PostFormValues } from '../lib/postForm';
import { Field } from '../../../components/ui';

type Value = Pick<PostFormValues, 'selectedDate' | 'selectedTime'>;

const HOURS = Array.from({ length: 12 }, (_, i) => i + 1);
const MINUTES = Array.from({ length: 60 }, (_, i) => i);

/** The post's date and time, shown on a 12-hour clock (docs/product.md#screens, #limits-and-timings). */
export function DateTimePicker({ value, onChange }: { value: Value; onChange(value: Value): void }) {
  const id = useId();
  const { hour, period } = to12Hour(value.selectedTime.hours);
  const setTime = (h: number, p: Period, minutes: number) =>
    onChange({ ...value, selectedTime: { hours: from12Hour(h, p), minutes } });
  return (
    <fieldset className="admin-datetime">
      <legend>Date and time</legend>
      <Field id={`${id}-post-date`} label="Date">
        <input
          id={`${id}-post-date`}
          type="date"
          required
          value={value.selectedDate}
          onChange={(e) => e.target.value && onChange({ ...value, selectedDate: e.target.value })}
        />
      </Field>
      <Field id={`${id}-post-hour`} label="Hour">
        <select
          id={`${id}-post-hour`}
          value={hour}
          onChange={(e) => setTime(Number(e.target.value), period, value.selectedTime.minutes)}
        >
          {HOURS.map((h) => (
            <option key={h} value={h}>
              {h}
            </option>
          ))}
        </select>
      </Field>
      <Field id={`${id}-post-minute`} label="Minute">
        <select
          id={`${id}-post-minute`}
          value={value.selectedTime.minutes}
          onChange={(e) => setTime(hour, period, Number(e.target.value))}
        >
          {MINUTES.map((m) => (
            <option key={m} value={m}>
              {String(m).padStart(2, '0')}
            </option>
          ))}
        </select>
      </Field>
      <Field id={`${id}-post-period`} label="AM/PM">
        <select
          id={`${id}-post-period`}
          value={period}
          onChange={(e) => setTime(hour, e.target.value as Period, value.selectedTime.minutes)}
        >
          <option>AM</option>
          <option>PM</option>
        </select>
      </Field>
    </fieldset>
  );
}
