#include <openetw/version.h>

#define ETW_STR2(x) #x
#define ETW_STR(x) ETW_STR2(x)

extern "C" ETW_API const char *etw_version_string(void)
{
    return ETW_STR(OPENETW_VERSION_MAJOR) "." ETW_STR(OPENETW_VERSION_MINOR) "." ETW_STR(OPENETW_VERSION_PATCH);
}
