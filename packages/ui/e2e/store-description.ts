/** The algorithm the store's browser suite submits, reviews and runs from the generated form. */

/** An author's description with one argument of most types: the form must draw each. */
export const description = (image: string, name: string) => ({
  name,
  display_name: `Summary ${name}`,
  description: 'Counts and summarises a numeric column at every organization.',
  image,
  partitioning: 'horizontal',
  vantage6_version: '3.11',
  code_url: 'https://example.org/summary',
  documentation_url: 'https://example.org/summary/docs',
  functions: [
    {
      name: 'central_summary',
      display_name: 'Summary',
      description: 'Starts partial_summary at each organization and combines the answers.',
      type: 'central',
      standalone: true,
      databases: [{ name: 'Data', description: 'A table with the column' }],
      arguments: [
        { name: 'column', display_name: 'Column', type: 'column', description: 'The numeric column' },
        { name: 'min_count', display_name: 'Minimum count', type: 'integer' },
        { name: 'threshold', type: 'float', has_default_value: true, default_value: '0.5' },
        { name: 'statistic', type: 'string', allowed_values: ['mean', 'median'] },
        {
          name: 'trim',
          type: 'float',
          has_default_value: true,
          default_value: '0.1',
          conditional_on: 'statistic',
          conditional_operator: '==',
          conditional_value: 'mean',
        },
        { name: 'drop_missing', type: 'boolean', has_default_value: true, default_value: 'false' },
        { name: 'groups', type: 'string_list', has_default_value: true },
        { name: 'organizations', type: 'organization_list', has_default_value: true },
        { name: 'options', type: 'json', has_default_value: true },
      ],
      ui_visualizations: [
        { name: 'Summary', type: 'table', schema: { location: [], keys: ['mean', 'count'] } },
        {
          name: 'Survival',
          description: 'share alive by day',
          type: 'line',
          schema: { location: ['curve'], x: 'day', y: ['alive'] },
        },
        { name: 'Ages', type: 'histogram', schema: { location: ['bins'] } },
      ],
    },
    {
      name: 'partial_summary',
      type: 'federated',
      standalone: false,
      databases: [{ name: 'Data' }],
      arguments: [{ name: 'column', type: 'column' }],
    },
  ],
});
