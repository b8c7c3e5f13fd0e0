# <mount path>/<role name>; the mount path may itself contain "/" (team/cloud/deploy). With the
# matching declaration, the next plan is empty.
terraform import keyward_cloud_auth_role.example cloud-apps/deploy
