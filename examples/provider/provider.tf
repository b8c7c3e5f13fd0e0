terraform {
  required_providers {
    keyward = {
      source = "keyward/keyward"
    }
  }
}

# The token comes from VAULT_TOKEN, then ~/.vault-token. Put your server's address here: a VAULT_ADDR
# that differs from it is an error (the token is sent to neither). Install the provider with `npx keyward terraform install` (see the README).
provider "keyward" {
  address          = "https://vault.example.com:8200"
  fingerprint_salt = var.fingerprint_salt
}

variable "fingerprint_salt" {
  description = "Key of the secret fingerprints kept in state (any long random string)."
  type        = string
  sensitive   = true
}
