import { AdminText, SETTINGS_MESSAGE_MS } from '@blog/contracts/admin';
import { SETTINGS_DEFAULTS, SETTINGS_LIMITS, type ImageSettings } from '@blog/contracts/image-settings';
import { useEffect, useState } from 'react';
import { useApi } from '../../../api/ApiContext';
import { ApiError } from '../../../api/client';
import { ErrorLine, Field, StatusLine, SubmitButton, useSubmit } from '../../../components/ui';
import { getSettings, saveSettings } from '../lib/adminApi';

/** Settings tab: the image settings panel (docs/product.md#screens, docs/api.md#put-apisettings, docs/product.md#error-texts). */
export function SettingsTab() {
  const api = useApi();
  const [settings, setSettings] = useState<ImageSettings | null>(null);
  const [loadError, setLoadError] = useState(false);
  const { pending: saving, message, setMessage, submit } = useSubmit();

  useEffect(() => {
    const controller = new AbortController();
    getSettings(api, controller.signal).then(setSettings, () => {
      if (!controller.signal.aborted) {
        setLoadError(true);
        setSettings(SETTINGS_DEFAULTS);
      }
    });
    return () => controller.abort();
  }, [api]);

  useEffect(() => {
    if (message?.kind !== 'success') return;
    const timer = setTimeout(() => setMessage(null), SETTINGS_MESSAGE_MS);
    return () => clearTimeout(timer);
  }, [message, setMessage]);

  const save = (settings: ImageSettings) =>
    submit(
      async () => {
        setSettings(await saveSettings(api, settings));
        return AdminText.settingsSaved;
      },
      {
        failure: (error) => {
          const server = error instanceof ApiError ? error.serverMessage : null;
          return server ? `Error: ${server}` : AdminText.settingsFailed;
        },
      },
    );

  return (
    <section className="card" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Image Settings</h2>
      {!settings && <p role="status">Loading settings...</p>}
      {loadError && <ErrorLine error="Could not load the stored settings; showing the defaults." />}
      {settings && (
        <form
          className="form admin-settings"
          onSubmit={(event) => {
            event.preventDefault();
            void save(settings);
          }}
        >
          <Slider
            id="image-max-size"
            label="Maximum image size"
            unit="px"
            limits={SETTINGS_LIMITS.image_max_size}
            value={settings.image_max_size}
            onChange={(image_max_size) => setSettings({ ...settings, image_max_size })}
          />
          <Slider
            id="image-quality"
            label="Image quality"
            unit="%"
            limits={SETTINGS_LIMITS.image_quality}
            value={settings.image_quality}
            onChange={(image_quality) => setSettings({ ...settings, image_quality })}
          />
          <label className="admin-switch">
            <input
              type="checkbox"
              role="switch"
              checked={settings.image_auto_optimize}
              onChange={(event) => setSettings({ ...settings, image_auto_optimize: event.target.checked })}
            />
            <span>Auto-optimise images</span>
            <span className="admin-switch-state">{settings.image_auto_optimize ? 'On' : 'Off'}</span>
          </label>
          <div className="admin-actions">
            <SubmitButton pending={saving} pendingLabel="Saving...">
              Save Settings
            </SubmitButton>
          </div>
          <StatusLine message={message} />
        </form>
      )}
    </section>
  );
}

interface SliderProps {
  id: string;
  label: string;
  unit: string;
  limits: { min: number; max: number; step: number };
  value: number;
  onChange(value: number): void;
}

function Slider({ id, label, unit, limits, value, onChange }: SliderProps) {
  return (
    <Field
      id={id}
      className="admin-slider"
      label={
        <>
          {label}: <output htmlFor={id}>{`${value}${unit}`}</output>
        </>
      }
    >
      <input
        id={id}
        type="range"
        min={limits.min}
        max={limits.max}
        step={limits.step}
        value={value}
        aria-valuetext={`${value}${unit}`}
        onChange={(event) => onChange(Number(event.target.value))}
      />
      <span className="admin-hint">
        {limits.min}
        {unit} to {limits.max}
        {unit}, steps of {limits.step}
      </span>
    </Field>
  );
}
