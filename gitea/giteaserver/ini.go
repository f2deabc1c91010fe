package giteaserver

// appIni is the test server's configuration: run user, work directory,
// port, root URL, static root. Webhooks may reach loopback (the bot under
// test listens there); no mail, no registration, no update checks.
const appIni = `APP_NAME = issuesmith test
RUN_USER = %[1]s
RUN_MODE = prod
I_AM_BEING_UNSAFE_RUNNING_AS_ROOT = true
WORK_PATH = %[2]s

[server]
PROTOCOL = http
HTTP_ADDR = 127.0.0.1
HTTP_PORT = %[3]d
ROOT_URL = %[4]s
DOMAIN = 127.0.0.1
STATIC_ROOT_PATH = %[5]s
APP_DATA_PATH = %[2]s/data
DISABLE_SSH = true
OFFLINE_MODE = true
LFS_START_SERVER = false

[database]
DB_TYPE = sqlite3
PATH = %[2]s/data/gitea.db

[repository]
ROOT = %[2]s/repos
DEFAULT_BRANCH = main

[security]
INSTALL_LOCK = true
SECRET_KEY = issuesmith-test-secret-key-0123456789
INTERNAL_TOKEN = eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJuYmYiOjE3MDAwMDAwMDB9.aXNzdWVzbWl0aC10ZXN0LWludGVybmFsLXRva2Vu

[oauth2]
JWT_SECRET = aXNzdWVzbWl0aC10ZXN0LWp3dC1zZWNyZXQtMDEyMzQ1Njc4OTAxMjM0NQ

[service]
DISABLE_REGISTRATION = true
REQUIRE_SIGNIN_VIEW = false

[webhook]
ALLOWED_HOST_LIST = loopback
DELIVER_TIMEOUT = 10

[mailer]
ENABLED = false

[cron.update_checker]
ENABLED = false

[actions]
ENABLED = false

[log]
MODE = console
LEVEL = Warn
ROOT_PATH = %[2]s/log
`
