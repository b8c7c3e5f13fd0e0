# The mount path. With the matching declaration, the next plan is empty (a declared
# credentials_env plans one update: secrets cannot be read back).
terraform import keyward_cloud_auth_backend.example cloud
