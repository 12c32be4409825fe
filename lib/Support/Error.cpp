#include "forge/Support/Error.h"

char forge::UsageError::ID = 0;
