# Roles as their own resources, on a mount whose backend declares no nested roles (referring to
# its path creates the mount first and destroys it last). For many roles on one mount, the
# backend's nested roles scale better; declare each role in one place only, and leave
# exclusive_roles off on a backend whose roles are resources.
resource "keyward_cloud_auth_backend" "apps" {
  path        = "cloud-apps"
  description = "Logins for application roles managed one resource per role"
}

resource "keyward_cloud_auth_role" "example" {
  backend                = keyward_cloud_auth_backend.apps.path
  name                   = "deploy"
  type                   = "iam"
  bound_service_accounts = ["deployer@my-project.iam.gserviceaccount.com"]
  token_policies         = ["deploy"]
  token_ttl              = "15m"
}
