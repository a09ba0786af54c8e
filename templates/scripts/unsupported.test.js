// An unsupported AIS call (bank-interface.md §4.5 rule 1, §4.7): the bank's documented refusal is 501 with an
// OBErrorResponse1 body (status, Content-Type, echo and schema are checked by checks.test.js).
const family = '{{js family}}';
let error = {};
try {
  error = pm.response.json() || {};
} catch {
  error = {};
}

pm.test(family + ' refusal names Code, Id, Message and an ErrorCode for every error', function () {
  pm.expect(error.Code, 'Code').to.be.a('string');
  pm.expect(error.Id, 'Id').to.be.a('string');
  pm.expect(error.Message, 'Message').to.be.a('string');
  pm.expect(error.Errors, 'Errors').to.be.an('array').with.length.above(0);
  error.Errors.forEach(function (entry) {
    pm.expect(entry.ErrorCode, 'Errors[].ErrorCode').to.be.a('string');
  });
});
