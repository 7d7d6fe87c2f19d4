/**
 * The load balancer's one template serves both deployments: docker-compose.yml gives the nginx image a
 * value for exactly the placeholders the template uses, and `npm run cluster` fills them all or stops.
 * (The cluster test runs nginx with the filled template; this keeps compose in step without Docker.)
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  placeholdersOf,
  readTemplate,
  renderTemplate,
  type LoadBalancerValues,
} from '../../scripts/cluster/render-nginx-config.js';

const VALUES: LoadBalancerValues = {
  LB_LISTEN: '127.0.0.1:8080',
  LB_UPSTREAM_SERVERS: 'server 127.0.0.1:9001; server 127.0.0.1:9002;',
  LB_BODY_LIMIT_BYTES: '102400',
  LB_ACCESS_LOG: '/tmp/access.log',
};

describe('deploy/nginx/moviedb.conf.template', () => {
  it('docker-compose.yml sets exactly the placeholders the template uses, and only those are substituted', () => {
    const compose = readFileSync('docker-compose.yml', 'utf8');
    const set = [...compose.matchAll(/^\s+(LB_[A-Z0-9_]+):/gm)].map((m) => m[1]).sort();
    expect(set).toEqual(placeholdersOf(readTemplate()).sort());
    expect(compose).toMatch(/NGINX_ENVSUBST_FILTER: '\^LB_'/);
  });

  it('renders with every placeholder filled, and refuses to render with one missing', () => {
    const rendered = renderTemplate(readTemplate(), VALUES);
    expect(rendered).not.toMatch(/\$\{LB_[A-Z]/);
    expect(rendered).toContain('server 127.0.0.1:9001; server 127.0.0.1:9002;');
    // nginx's own variables stay as they are.
    expect(rendered).toContain('$proxy_add_x_forwarded_for');
    const { LB_ACCESS_LOG: _, ...partial } = VALUES;
    expect(() => renderTemplate(readTemplate(), partial as LoadBalancerValues)).toThrow(/LB_ACCESS_LOG/);
  });
});
