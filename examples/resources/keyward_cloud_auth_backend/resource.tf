# A cloud auth mount with its config and two roles. The service account key is read from the
# CLOUD_AUTH_CREDENTIALS environment variable at plan and apply; only its fingerprint is stored.
resource "keyward_cloud_auth_backend" "example" {
  path        = "cloud"
  description = "Workload logins"

  config {
    credentials_env = "CLOUD_AUTH_CREDENTIALS"
    iam_alias       = "unique_id"
  }

  # Service-account JWT logins.
  roles "ci" {
    type                   = "iam"
    bound_service_accounts = ["ci@my-project.iam.gserviceaccount.com"]
    token_policies         = ["ci"]
    token_ttl              = "1h"
    max_jwt_exp            = "30m"
  }

  # Instance identity logins from one zone, for instances labelled app=web.
  roles "web" {
    type           = "vm"
    bound_projects = ["my-project"]
    bound_zones    = ["europe-west1-b"]
    bound_labels   = { app = "web" }
    token_policies = ["web"]
    token_max_ttl  = "24h"
  }
}
