// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { BarChart, ErrorBox, Field, Pager, Status, formatNumber } from './ui.js';

afterEach(cleanup);

describe('the building blocks of the pages', () => {
  it('a refusal is announced as an alert with the message as given', () => {
    render(<ErrorBox error="You lack the rule user EDIT ORGANIZATION" />);
    expect(screen.getByRole('alert').textContent).toBe('You lack the rule user EDIT ORGANIZATION');
    cleanup();
    render(<ErrorBox error={null} />);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('the pager shows where one is and moves through the API pages', () => {
    const onPage = vi.fn();
    render(<Pager page={2} perPage={25} total={1000} onPage={onPage} />);
    expect(screen.getByText('Page 2 of 40 · 1000 in all')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Next →' }));
    fireEvent.click(screen.getByRole('button', { name: '← Previous' }));
    expect(onPage.mock.calls).toEqual([[3], [1]]);
    cleanup();
    render(<Pager page={1} perPage={25} total={3} onPage={onPage} />);
    expect((screen.getByRole('button', { name: '← Previous' }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Next →' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('every field has a label tied to its input', () => {
    render(<Field label="Image">{(id) => <input id={id} />}</Field>);
    expect(screen.getByLabelText('Image').tagName).toBe('INPUT');
  });

  it('the chart is an image with a text alternative holding every value', () => {
    render(
      <BarChart
        title="sum"
        data={[
          { label: 'Hospital A', value: 121 },
          { label: 'Hospital B', value: 125.5 },
        ]}
      />,
    );
    expect(screen.getByRole('img').getAttribute('aria-label')).toBe('sum: Hospital A 121, Hospital B 125.5');
    expect(screen.getAllByText(/^12[15]/).map((e) => e.textContent)).toEqual(['121', '125.5']);
  });

  it('statuses read as text; numbers keep at most four decimals', () => {
    render(<Status value="completed" />);
    expect(screen.getByText('completed').className).toContain('status-ok');
    // Every failed run status reads as bad, whatever its words (docs/run-statuses.md).
    for (const status of ['killed by user', 'non-existing Docker image', 'unexpected output', 'crashed']) {
      render(<Status value={status} />);
      expect(screen.getByText(status).className).toContain('status-bad');
    }
    render(<Status value="cancelled" />);
    expect(screen.getByText('cancelled').className).toContain('status-off');
    expect(formatNumber(246 / 7)).toBe('35.1429');
    expect(formatNumber(7)).toBe('7');
  });
});
