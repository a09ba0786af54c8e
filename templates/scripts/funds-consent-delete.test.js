// DELETE /funds-confirmation-consents/{ConsentId}: 204 has no body (the files define none).
pm.test('the deleted consent answers no body', function () {
  pm.expect(pm.response.text()).to.equal('');
});
pm.environment.set('funds_consent_status', 'deleted');
