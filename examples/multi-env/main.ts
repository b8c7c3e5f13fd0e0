// Two environments as two stacks, each with its own server and mount. `cdktf deploy dev` and
// `cdktf deploy prod` are independent; each writes its own manifest and Terraform state.

import { App, TerraformStack } from 'cdktf';
import { Construct } from 'constructs';
import { CloudAuthBackend, CloudAuthRole, KeywardServer, RemovalPolicy } from '../../constructs';

interface EnvProps {
  readonly address: string;
  readonly mount: string;
  readonly project: string;
  readonly ttl: string;
  readonly retain: boolean;
}

class AuthStack extends TerraformStack {
  constructor(scope: Construct, id: string, props: EnvProps) {
    super(scope, id);
    const server = new KeywardServer(this, 'server', { address: props.address });
    const backend = new CloudAuthBackend(this, 'cloud', {
      server,
      path: props.mount,
      description: `${id} workloads`,
      // Production keeps its mount (and roles) if the stack is ever destroyed.
      removalPolicy: props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      exclusiveRoles: true,
    });
    CloudAuthRole.iam(this, 'api', {
      backend,
      boundServiceAccounts: [`api@${props.project}.iam.gserviceaccount.com`],
      tokenPolicies: [`${id}-api`],
      tokenTtl: props.ttl,
    });
    CloudAuthRole.vm(this, 'workers', {
      backend,
      boundProjects: [props.project],
      boundRegions: ['europe-west1'],
      boundInstanceGroups: ['workers'],
      tokenPolicies: [`${id}-workers`],
    });
  }
}

const app = new App();
new AuthStack(app, 'dev', { address: process.env.DEV_VAULT_ADDR ?? 'http://127.0.0.1:8200', mount: 'cloud-dev', project: 'demo-dev', ttl: '8h', retain: false });
new AuthStack(app, 'prod', { address: process.env.PROD_VAULT_ADDR ?? 'http://127.0.0.1:8200', mount: 'cloud-prod', project: 'demo-prod', ttl: '1h', retain: true });
app.synth();
