/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// A fresh x-fapi-interaction-id for this request (FAPI 1 Baseline §6.2.2 item 4): sent as a header, compared with
// the echo by check-echo.test.js (or check-echo-if-present.test.js).
pm.environment.set('x_fapi_interaction_id', require('uuid').v4());
